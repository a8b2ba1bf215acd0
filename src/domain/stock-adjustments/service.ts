import type { RawBuilder } from "kysely";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { emit, eventInStatement } from "../../events/outbox.ts";
import { findShownLocation, findVariants, type VariantRow } from "../catalog/index.ts";
import { DetailCollector, notFound, validationFailed } from "../errors.ts";
import { lockNewLevelsAt, type MovementInput, recordStockMovementsWith } from "../stock/index.ts";
import { takeStockAdjustmentNumber } from "../stores/index.ts";
import { presentApplied, presentOne, type StockAdjustmentView } from "./presenter.ts";
import {
  type AdjustmentLineInsert,
  type AdjustmentRow,
  type AdjustmentUpdate,
  appliedWrites,
  findAdjustment,
  firstUnusedAdjustmentNumber,
  insertAdjustment,
  linesToApply,
  lockAdjustmentWithLocationName,
  replaceLines,
  updateAdjustmentRow,
} from "./repository.ts";
import { type AdjustmentReason, nextAdjustmentStatus } from "./transitions.ts";

/**
 * Stock adjustments: a signed delta per line, drafted, then applied once. Applying reads each item's
 * mirror level at the location under a row lock (quantity_before), writes one stock movement per line
 * through the stock pipeline (which moves the mirror level and queues the platform push), and marks
 * the adjustment applied; all in the caller's transaction.
 */

export interface AdjustmentLineInput {
  variant_id?: number | null;
  inventory_item_id?: number | null;
  product_title?: string | null;
  variant_title?: string | null;
  sku?: string | null;
  barcode?: string | null;
  delta: number;
  lot_id?: number | null;
  lot_number?: string | null;
  lot_units?: number | null;
  expected_before?: number | null;
}

export interface AdjustmentInput {
  location_id?: number;
  reason?: AdjustmentReason;
  note?: string | null;
  lines?: AdjustmentLineInput[];
}

export interface StoreRef {
  id: number;
  currency: string;
}

const SUBJECT = "stock_adjustment";
const INT4_MAX = 2147483647;

export function formatAdjustmentNumber(prefix: string, sequentialId: number): string {
  return `${prefix}${String(sequentialId).padStart(4, "0")}`;
}

export function adjustmentReference(id: number): string {
  return `stockroom://stock_adjustments/${id}`;
}

/** The adjustment's event (an apply's is written in its ledger statement: `eventInStatement`). */
async function emitAdjustment(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  name: string,
  view: StockAdjustmentView,
): Promise<void> {
  await emit(ctx, trx, { storeId, name, subjectType: SUBJECT, subjectId: view.id, data: view });
}

/** An applied adjustment and its JSON text, which the event was written from. */
export interface AppliedAdjustment {
  view: StockAdjustmentView;
  json: string;
}

async function checkLocation(
  db: Db,
  storeId: number,
  locationId: number,
  problems: DetailCollector,
): Promise<{ id: number; name: string } | undefined> {
  const location = await findShownLocation(db, storeId, locationId);
  if (!location) problems.add("location_id", "not_found", "is not a location of this store");
  else if (!location.active)
    problems.add("location_id", "inactive", `location ${locationId} is no longer active on the platform`);
  return location?.active ? { id: location.id, name: location.name } : undefined;
}

/**
 * Resolves input lines against the mirror (one query for every line): each names an item by
 * `variant_id` or `inventory_item_id` (both: they must agree), has a non-zero delta, and names an item
 * at most once. Titles, SKU and barcode come from the mirror unless the line sends its own; the unit
 * cost is the variant's (in its cost currency, else the store's).
 */
async function resolveLines(
  db: Db,
  store: StoreRef,
  lines: readonly AdjustmentLineInput[],
  problems: DetailCollector,
): Promise<Omit<AdjustmentLineInsert, "adjustment_id">[]> {
  const variantIds: number[] = [];
  const itemIds: number[] = [];
  for (const line of lines) {
    if (line.variant_id != null) variantIds.push(line.variant_id);
    if (line.inventory_item_id != null) itemIds.push(line.inventory_item_id);
  }
  const { byVariantId: byVariant, byInventoryItemId: byItem } = await findVariants(db, store.id, {
    variantIds,
    inventoryItemIds: itemIds,
  });
  const seenItems = new Set<number>();
  const resolved: Omit<AdjustmentLineInsert, "adjustment_id">[] = [];
  lines.forEach((line, index) => {
    const at = `lines.${index}`;
    if (line.delta === 0) problems.add(`${at}.delta`, "invalid_value", "must be a non-zero integer");
    let variant: VariantRow | undefined;
    let field = "variant_id";
    if (line.variant_id == null && line.inventory_item_id == null) {
      problems.add(`${at}.variant_id`, "required", "a line needs variant_id or inventory_item_id");
      return;
    }
    if (line.variant_id != null) {
      variant = byVariant.get(line.variant_id);
      if (!variant) {
        problems.add(`${at}.variant_id`, "not_found", "is not a variant of this store");
        return;
      }
    }
    if (line.inventory_item_id != null) {
      const byItemId = byItem.get(line.inventory_item_id);
      if (!byItemId) {
        problems.add(`${at}.inventory_item_id`, "not_found", "is not an inventory item of this store");
        return;
      }
      if (variant && Number(variant.inventory_item_id) !== line.inventory_item_id) {
        problems.add(`${at}.inventory_item_id`, "mismatch", "is not the inventory item of variant_id");
        return;
      }
      if (!variant) field = "inventory_item_id";
      variant = byItemId;
    }
    if (!variant) return;
    if (variant.deleted_at !== null) {
      problems.add(`${at}.${field}`, "deleted", "was deleted on the platform: its stock cannot be adjusted");
      return;
    }
    const itemId = Number(variant.inventory_item_id);
    if (seenItems.has(itemId)) {
      problems.add(`${at}.${field}`, "duplicate", "names an item another line already adjusts");
      return;
    }
    seenItems.add(itemId);
    resolved.push({
      store_id: store.id,
      position: index + 1,
      product_title: line.product_title ?? variant.product_title,
      variant_title: line.variant_title ?? variant.title,
      sku: line.sku ?? variant.sku,
      barcode: line.barcode ?? variant.barcode,
      inventory_item_id: itemId,
      variant_id: Number(variant.id),
      delta: line.delta,
      quantity_before: null,
      quantity_after: null,
      unit_cost: variant.unit_cost,
      unit_cost_currency: variant.unit_cost_currency ?? store.currency,
      lot_id: line.lot_id ?? null,
      lot_number: line.lot_number ?? null,
      lot_units: line.lot_units ?? null,
      expected_before: line.expected_before ?? null,
    });
  });
  return resolved;
}

async function lockedAdjustment(trx: Db, storeId: number, id: number): Promise<AdjustmentRow> {
  const row = await findAdjustment(trx, storeId, id, { forUpdate: true });
  if (!row) throw notFound("stock adjustment");
  return row;
}

/** POST /stock_adjustments: a draft, numbered from the store's counter. Emits stock_adjustment.updated. */
export async function createAdjustment(
  ctx: AppContext,
  trx: Db,
  store: StoreRef,
  input: AdjustmentInput & { location_id: number; lines: AdjustmentLineInput[] },
): Promise<StockAdjustmentView> {
  const problems = new DetailCollector();
  const location = await checkLocation(trx, store.id, input.location_id, problems);
  const lines = await resolveLines(trx, store, input.lines, problems);
  problems.throwIfAny();
  const { sequentialId, prefix } = await takeStockAdjustmentNumber(
    trx,
    store.id,
    firstUnusedAdjustmentNumber(store.id),
  );
  const now = ctx.clock.now();
  const row = await insertAdjustment(trx, {
    store_id: store.id,
    sequential_id: sequentialId,
    number: formatAdjustmentNumber(prefix, sequentialId),
    status: "draft",
    source: "api",
    reason: input.reason ?? "correction",
    note: input.note ?? null,
    location_id: input.location_id,
    location_name: location?.name ?? "",
    stocktake_id: null,
    reversal_of_id: null,
    applied_at: null,
    cancelled_at: null,
    created_at: now,
    updated_at: now,
  });
  await replaceLines(
    trx,
    store.id,
    row.id,
    lines.map((l) => ({ ...l, adjustment_id: row.id })),
  );
  const view = await presentOne(trx, store.id, row);
  await emitAdjustment(ctx, trx, store.id, "stock_adjustment.updated", view);
  return view;
}

/**
 * PATCH: drafts only; only the fields sent change, `lines` replaces the set. A PATCH that changes
 * nothing writes nothing (no updated_at bump, no event).
 */
export async function updateAdjustment(
  ctx: AppContext,
  trx: Db,
  store: StoreRef,
  id: number,
  input: AdjustmentInput,
): Promise<StockAdjustmentView> {
  const row = await lockedAdjustment(trx, store.id, id);
  nextAdjustmentStatus(row.status, "update");
  const problems = new DetailCollector();
  const set: AdjustmentUpdate = {};
  if (input.location_id !== undefined && input.location_id !== Number(row.location_id)) {
    const location = await checkLocation(trx, store.id, input.location_id, problems);
    set.location_id = input.location_id;
    if (location) set.location_name = location.name;
  }
  if (input.reason !== undefined && input.reason !== row.reason) set.reason = input.reason;
  if (input.note !== undefined && input.note !== row.note) set.note = input.note;
  const lines = input.lines !== undefined ? await resolveLines(trx, store, input.lines, problems) : null;
  problems.throwIfAny();
  if (Object.keys(set).length === 0 && lines === null) return presentOne(trx, store.id, row);
  const updated = await updateAdjustmentRow(trx, store.id, id, { ...set, updated_at: ctx.clock.now() });
  if (lines !== null)
    await replaceLines(
      trx,
      store.id,
      id,
      lines.map((l) => ({ ...l, adjustment_id: id })),
    );
  const view = await presentOne(trx, store.id, updated);
  await emitAdjustment(ctx, trx, store.id, "stock_adjustment.updated", view);
  return view;
}

/**
 * POST …/apply. Locks the adjustment, then the mirror levels of its items at its location (in item
 * order; a missing level row is created at 0 first so it can be locked too); records quantity_before (the level's `available` at that moment, 0 when the mirror has no
 * level row) and quantity_after = before + delta; refuses the whole apply when a line's
 * `expected_before` no longer matches; writes one movement per line (available and on_hand move by the
 * delta, reason = the adjustment's reason) through the stock pipeline; marks it applied.
 * Reads and writes are batched: a fixed number of queries whatever the line count. The view is
 * serialized once (200 lines: ~60 KB of JSON), before the writes: everything it shows is known once
 * the levels are read, so the event is written from that text in the ledger's statement, with the
 * caller's own writes of it (`answerWrites`: the stored idempotent answer) beside, and the caller
 * answers with it instead of serializing the view twice more.
 */
export async function applyAdjustment(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  id: number,
  answerWrites: (
    json: string,
  ) => ReadonlyArray<readonly [name: string, write: RawBuilder<unknown>]> = () => [],
): Promise<AppliedAdjustment> {
  const row = await lockAdjustmentWithLocationName(trx, storeId, id);
  if (!row) throw notFound("stock adjustment");
  const status = nextAdjustmentStatus(row.status, "apply");
  const locationId = Number(row.location_id);
  // Each line says whether its item was deleted on the platform and its level's `available`, that
  // level locked, read with the lines; the levels missing there are created at 0 and locked.
  const lines = await linesToApply(trx, storeId, id, locationId);
  const levels = new Map<number, { id: number; available: number }>();
  const missing: number[] = [];
  for (const line of lines) {
    if (line.level_id === null || line.level_available === null) missing.push(Number(line.inventory_item_id));
    else
      levels.set(Number(line.inventory_item_id), {
        id: Number(line.level_id),
        available: line.level_available,
      });
  }
  for (const [item, level] of await lockNewLevelsAt(trx, storeId, locationId, missing, ctx.clock.now()))
    levels.set(item, level);
  const problems = new DetailCollector();
  // A draft's item deleted on the platform since it was written: the draft is refused like a new line.
  lines.forEach((line, index) => {
    if (line.item_deleted)
      problems.add(
        `lines.${index}.variant_id`,
        "deleted",
        "was deleted on the platform since the draft was written: remove the line to apply",
      );
  });
  const quantities = lines.map((line, index) => {
    const before = levels.get(Number(line.inventory_item_id))?.available ?? 0;
    const after = before + line.delta;
    if (line.expected_before !== null && line.expected_before !== before)
      problems.add(
        `lines.${index}.expected_before`,
        "stock_changed",
        `was counted against ${line.expected_before}, but the level at this location is ${before} now`,
      );
    if (Math.abs(after) > INT4_MAX)
      problems.add(`lines.${index}.delta`, "out_of_range", `would take the level to ${after}`);
    return { id: Number(line.id), before, after };
  });
  problems.throwIfAny();
  const now = ctx.clock.now();
  const set = { status, applied_at: now, updated_at: now };
  // The row as updated, without reading it back (the lock's read, location name aside).
  const { current_location_name: currentLocationName, ...locked } = row;
  const updated: AdjustmentRow = { ...locked, ...set };
  // The lines as now stored, without reading them back.
  const appliedLines = lines.map(
    ({ item_deleted: _deleted, level_id: _levelId, level_available: _level, ...line }, index) => ({
      ...line,
      quantity_before: quantities[index].before,
      quantity_after: quantities[index].after,
    }),
  );
  const movements: MovementInput[] = lines.map((line) => ({
    inventoryItemId: Number(line.inventory_item_id),
    locationId,
    // `available` moves and on_hand follows, for every reason (cycle_count_available included).
    availableDelta: line.delta,
    reason: row.reason,
  }));
  // Its platform_sync is pending once it moves stock: a line moves stock when its delta is not zero
  // (the ledger records no movement whose deltas are all zero).
  const view = presentApplied(
    updated,
    appliedLines,
    currentLocationName,
    movements.some((m) => m.availableDelta !== 0),
  );
  const json = JSON.stringify(view);
  const event = eventInStatement(
    ctx,
    { storeId, name: "stock_adjustment.applied", subjectType: SUBJECT, subjectId: id, dataText: json },
    "applied_event",
  );
  // The apply's own rows, its event and the caller's writes go in the ledger's statement: one round
  // trip for every write.
  const { columns } = await recordStockMovementsWith(
    ctx,
    trx,
    {
      storeId,
      subjectType: SUBJECT,
      subjectId: id,
      reference: adjustmentReference(id),
      movements,
      // Every level of its lines was locked with the lines (the missing ones created first).
      lockedLevelId: (item, location) => (location === locationId ? levels.get(item)?.id : undefined),
      // Its location deactivated or deleted on the platform, or an item no longer stocked there,
      // since the draft was written: refused (nothing written), as a new draft would be.
      refuseGone: (gone) => {
        const refused = new DetailCollector();
        if (gone.some((g) => g.gone === "location"))
          refused.add(
            "location_id",
            "inactive",
            `location ${locationId} is no longer active on the platform: its stock cannot be adjusted`,
          );
        const dropped = new Set(gone.filter((g) => g.gone === "level").map((g) => g.inventoryItemId));
        lines.forEach((line, index) => {
          if (dropped.has(Number(line.inventory_item_id)))
            refused.add(
              `lines.${index}.variant_id`,
              "not_stocked",
              `inventory item ${line.inventory_item_id} is no longer stocked at location ${locationId} on the platform`,
            );
        });
        throw validationFailed(refused.details);
      },
    },
    {
      parts: [
        ...appliedWrites(storeId, id, quantities, set),
        ["applied_event", event.write],
        ...answerWrites(json),
      ],
      columns: event.columns,
    },
  );
  await event.emitted(trx, columns);
  return { view, json };
}

/** POST …/cancel: drafts only; nothing moves. */
export async function cancelAdjustment(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  id: number,
): Promise<StockAdjustmentView> {
  const row = await lockedAdjustment(trx, storeId, id);
  const status = nextAdjustmentStatus(row.status, "cancel");
  const now = ctx.clock.now();
  const updated = await updateAdjustmentRow(trx, storeId, id, { status, cancelled_at: now, updated_at: now });
  const view = await presentOne(trx, storeId, updated);
  await emitAdjustment(ctx, trx, storeId, "stock_adjustment.cancelled", view);
  return view;
}

export async function getAdjustment(db: Db, storeId: number, id: number): Promise<StockAdjustmentView> {
  const row = await findAdjustment(db, storeId, id);
  if (!row) throw notFound("stock adjustment");
  return presentOne(db, storeId, row);
}
