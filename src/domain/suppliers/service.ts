import Big from "big.js";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import type { StoredTier } from "../../db/tables/suppliers.ts";
import { emit } from "../../events/outbox.ts";
import { AppError, DetailCollector, invalidTransition, notFound } from "../errors.ts";
import { isKnownCurrency, minorUnits, parseDecimalInput } from "../money.ts";
import { type Actor, addHistory, loadPurchaseOrders } from "../purchase-orders/index.ts";
import { presentSupplier, type SupplierRow } from "./presenter.ts";
import { type CatalogRow, localDate, promoteDue } from "./pricing.ts";
import {
  type CatalogUpdate,
  catalogRowsFor,
  clearOtherPrimaries,
  deleteCatalogRow,
  deleteCatalogRowsById,
  findSupplier,
  findVariantsForItems,
  insertCatalogRow,
  insertSupplier,
  lockSuppliers,
  movePurchaseOrders,
  type SupplierUpdate,
  updateCatalogRow,
  updateCatalogRowsById,
  updateSupplierRow,
  updateSuppliers,
} from "./repository.ts";

/** The store a request acts for (the principal's store). */
export interface StoreRef {
  id: number;
  currency: string;
  timezone: string;
}

/** SupplierInput of the contract (create and PATCH), address written flat. */
export interface SupplierInput {
  name?: string;
  company_name?: string | null;
  type?: string | null;
  contact_name?: string | null;
  phone?: string | null;
  account_number?: string | null;
  payment_terms?: string | null;
  notes?: string | null;
  bill_to_address?: string | null;
  email?: string | null;
  email_cc?: string[] | null;
  currency?: string | null;
  location_account_numbers?: Record<string, string> | null;
  lead_time_days?: number | null;
  min_order_value?: number | string | null;
  free_freight_threshold?: number | string | null;
  taxable?: boolean;
  ships_direct?: boolean;
  auto_restock?: boolean;
  exclude_from_reorder?: boolean;
  default_updates_stock?: boolean | null;
  address_line1?: string | null;
  address_line2?: string | null;
  city?: string | null;
  province?: string | null;
  zip?: string | null;
  country?: string | null;
  match_vendors?: string[] | null;
  match_tags?: string[] | null;
  match_exclude_tags?: string[] | null;
  dropship_tags?: string[] | null;
}

const TEXT_FIELDS = [
  "company_name",
  "type",
  "contact_name",
  "phone",
  "account_number",
  "payment_terms",
  "notes",
  "bill_to_address",
  "email",
  "address_line1",
  "address_line2",
  "city",
  "province",
  "zip",
  "country",
] as const;
const LIST_FIELDS = [
  "email_cc",
  "match_vendors",
  "match_tags",
  "match_exclude_tags",
  "dropship_tags",
] as const;
const BOOLEAN_FIELDS = ["taxable", "ships_direct", "auto_restock", "exclude_from_reorder"] as const;
const MONEY_FIELDS = ["min_order_value", "free_freight_threshold"] as const;
const ADDRESS_FIELDS = ["address_line1", "address_line2", "city", "province", "zip", "country"] as const;
/** Supplier money columns are numeric(20, 8): at most 12 integer digits. */
const MONEY_LIMIT = new Big("1e12");

/** Changed columns, as domain values (arrays and objects, not yet JSON text). */
type Changes = Partial<Record<keyof SupplierRow, unknown>>;

/**
 * Reads a SupplierInput into column values. Empty strings in nullable text fields are stored as null;
 * null lists become [] and a null `location_account_numbers` becomes {}. Money must have no more
 * places than the supplier's currency has minor units (two when it has none).
 */
function supplierChanges(
  input: SupplierInput,
  currentCurrency: string | null,
  problems: DetailCollector,
): Changes {
  const changes: Changes = {};
  if (input.name !== undefined) {
    if (input.name.trim() === "") problems.add("name", "blank", "must not be blank");
    else changes.name = input.name;
  }
  for (const field of TEXT_FIELDS) {
    const value = input[field];
    if (value !== undefined) changes[field] = value === "" ? null : value;
  }
  for (const field of LIST_FIELDS) {
    const value = input[field];
    if (value !== undefined) changes[field] = value ?? [];
  }
  for (const field of BOOLEAN_FIELDS) {
    const value = input[field];
    if (value !== undefined) changes[field] = value;
  }
  if (input.default_updates_stock !== undefined) changes.default_updates_stock = input.default_updates_stock;
  if (input.lead_time_days !== undefined) changes.lead_time_days = input.lead_time_days;
  if (input.location_account_numbers !== undefined)
    changes.location_account_numbers = input.location_account_numbers ?? {};

  let currency = currentCurrency;
  if (input.currency !== undefined) {
    if (input.currency === null || input.currency === "") {
      changes.currency = null;
      currency = null;
    } else if (!isKnownCurrency(input.currency)) {
      problems.add("currency", "invalid_value", "must be an ISO 4217 currency code such as USD");
      currency = null;
    } else {
      changes.currency = input.currency;
      currency = input.currency;
    }
  }
  const places = currency ? minorUnits(currency) : 2;
  for (const field of MONEY_FIELDS) {
    const value = input[field];
    if (value === undefined) continue;
    if (value === null) {
      changes[field] = null;
      continue;
    }
    const parsed = parseDecimalInput(value, { maxPlaces: places });
    if (!parsed.ok) problems.add(field, parsed.code, parsed.message);
    else if (parsed.value.gte(MONEY_LIMIT)) problems.add(field, "out_of_range", "is too large");
    else changes[field] = parsed.value.toFixed();
  }
  return changes;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function sameValue(field: string, before: unknown, after: unknown): boolean {
  if (before === null || after === null || before === undefined || after === undefined)
    return (before ?? null) === (after ?? null);
  if ((MONEY_FIELDS as readonly string[]).includes(field))
    return new Big(before as string).eq(new Big(after as string));
  return stableJson(before) === stableJson(after);
}

function toColumns(changes: Changes): SupplierUpdate {
  const set: Record<string, unknown> = { ...changes };
  if (set.location_account_numbers !== undefined)
    set.location_account_numbers = JSON.stringify(set.location_account_numbers);
  return set as SupplierUpdate;
}

async function emitSupplier(ctx: AppContext, trx: Db, name: string, row: SupplierRow): Promise<void> {
  await emit(ctx, trx, {
    storeId: row.store_id,
    name,
    subjectType: "supplier",
    subjectId: row.id,
    data: presentSupplier(row),
  });
}

async function requireSupplier(trx: Db, storeId: number, id: number): Promise<SupplierRow> {
  const row = await findSupplier(trx, storeId, id, { forUpdate: true });
  if (!row) throw notFound("supplier");
  return row;
}

export async function createSupplier(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  input: SupplierInput & { name: string },
): Promise<SupplierRow> {
  const problems = new DetailCollector();
  const changes = supplierChanges(input, null, problems);
  problems.throwIfAny();
  const now = ctx.clock.now();
  const row = await insertSupplier(trx, {
    ...toColumns(changes),
    name: input.name,
    store_id: storeId,
    created_at: now,
    updated_at: now,
  });
  await emitSupplier(ctx, trx, "supplier.created", row);
  return row;
}

/** PATCH: only the fields sent change; nothing written (and no event) when nothing differs. */
export async function updateSupplier(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  id: number,
  input: SupplierInput,
): Promise<SupplierRow> {
  const current = await requireSupplier(trx, storeId, id);
  const problems = new DetailCollector();
  const changes = supplierChanges(input, current.currency, problems);
  problems.throwIfAny();
  const differing: Changes = {};
  for (const [field, value] of Object.entries(changes)) {
    if (!sameValue(field, current[field as keyof SupplierRow], value))
      differing[field as keyof SupplierRow] = value;
  }
  if (Object.keys(differing).length === 0) return current;
  const row = await updateSupplierRow(trx, storeId, id, {
    ...toColumns(differing),
    updated_at: ctx.clock.now(),
  });
  await emitSupplier(ctx, trx, "supplier.updated", row);
  return row;
}

export async function archiveSupplier(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  id: number,
): Promise<SupplierRow> {
  const current = await requireSupplier(trx, storeId, id);
  if (current.archived) {
    throw invalidTransition(
      current.merged_into_id !== null
        ? `Supplier is archived (merged into supplier ${current.merged_into_id}).`
        : "Supplier is already archived.",
    );
  }
  const now = ctx.clock.now();
  const row = await updateSupplierRow(trx, storeId, id, {
    archived: true,
    archived_at: now,
    updated_at: now,
  });
  await emitSupplier(ctx, trx, "supplier.archived", row);
  return row;
}

export async function unarchiveSupplier(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  id: number,
): Promise<SupplierRow> {
  const current = await requireSupplier(trx, storeId, id);
  if (current.merged_into_id !== null) {
    throw invalidTransition(
      `Supplier is merged into supplier ${current.merged_into_id}; a merged supplier cannot be unarchived.`,
    );
  }
  if (!current.archived)
    throw invalidTransition("Supplier is active; only an archived supplier can be unarchived.");
  const row = await updateSupplierRow(trx, storeId, id, {
    archived: false,
    archived_at: null,
    updated_at: ctx.clock.now(),
  });
  await emitSupplier(ctx, trx, "supplier.updated", row);
  return row;
}

// ---------------------------------------------------------------------------------------------------
// Merge

export interface MergeResult {
  survivor: SupplierRow;
  moved: { purchase_orders: number; items: number; suppliers: number };
}

/** Target fields filled from the first source that has them (address as one unit, see below). */
const FILLABLE_FIELDS = [
  "company_name",
  "type",
  "contact_name",
  "phone",
  "account_number",
  "payment_terms",
  "notes",
  "bill_to_address",
  "email",
  "currency",
  "lead_time_days",
  "default_updates_stock",
] as const;

/**
 * Null fields of the target filled from the sources, in `source_ids` order. The address moves as a
 * whole (only when the target has no address line at all), so lines of two addresses never mix; money
 * fields are taken only from a source in the target's (possibly just filled) currency.
 */
function fillFromSources(target: SupplierRow, sources: readonly SupplierRow[]): Changes {
  const fill: Changes = {};
  for (const field of FILLABLE_FIELDS) {
    if (target[field] !== null) continue;
    const from = sources.find((s) => s[field] !== null);
    if (from) fill[field] = from[field];
  }
  if (ADDRESS_FIELDS.every((f) => target[f] === null)) {
    const from = sources.find((s) => ADDRESS_FIELDS.some((f) => s[f] !== null));
    if (from) for (const f of ADDRESS_FIELDS) fill[f] = from[f];
  }
  const currency = (fill.currency as string | null | undefined) ?? target.currency;
  for (const field of MONEY_FIELDS) {
    if (target[field] !== null) continue;
    const from = sources.find((s) => s[field] !== null && s.currency === currency);
    if (from) fill[field] = from[field];
  }
  return fill;
}

/**
 * POST /suppliers/merge. Sources are archived with `merged_into_id`; their purchase orders and catalog
 * rows move to the target (an item the target already has keeps the target's row; the source's is
 * dropped, and a primary pin it held passes to the row kept); the target's null fields are filled from
 * the sources. Each moved order gets an `updated` history row (`changes.supplier_id`) by `actor`.
 * Events: supplier.archived (or supplier.updated for an already archived source) per source, then
 * supplier.merged with the survivor, then purchase_order.updated per moved order.
 */
export async function mergeSuppliers(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  input: { target_id: number; source_ids: number[] },
  actor: Actor,
): Promise<MergeResult> {
  const { target_id: targetId, source_ids: sourceIds } = input;
  const locked = await lockSuppliers(trx, storeId, [targetId, ...sourceIds]);
  const byId = new Map(locked.map((r) => [r.id, r]));
  const problems = new DetailCollector();
  const target = byId.get(targetId);
  if (!target) problems.add("target_id", "not_found", "no such supplier in this store");
  else if (target.merged_into_id !== null)
    problems.add("target_id", "merged", `was merged into supplier ${target.merged_into_id}`);
  else if (target.archived) problems.add("target_id", "archived", "is archived; unarchive it first");
  const seen = new Set<number>();
  sourceIds.forEach((id, i) => {
    const field = `source_ids.${i}`;
    const source = byId.get(id);
    if (id === targetId) problems.add(field, "same_as_target", "is the target itself");
    else if (seen.has(id)) problems.add(field, "duplicate", "is listed more than once");
    else if (!source) problems.add(field, "not_found", "no such supplier in this store");
    else if (source.merged_into_id !== null)
      problems.add(field, "merged", `was already merged into supplier ${source.merged_into_id}`);
    seen.add(id);
  });
  problems.throwIfAny();
  const survivor = target as SupplierRow;
  const sources = sourceIds.map((id) => byId.get(id) as SupplierRow);
  const linked = sources.find((s) => s.network_linked);
  if (linked) {
    throw new AppError(
      "merge_network_blocked",
      `Supplier ${linked.id} has a live supplier network link; unlink it before merging it away.`,
    );
  }

  const now = ctx.clock.now();
  const movedOrders = await movePurchaseOrders(trx, storeId, sourceIds, targetId, now);
  for (const order of movedOrders) {
    await addHistory(trx, {
      storeId,
      orderId: order.id,
      type: "updated",
      by: actor.by,
      via: actor.via,
      at: now,
      data: { changes: { supplier_id: [order.supplier_id, targetId] }, merge: true },
    });
  }

  // Catalog rows: the target's rows win; then the first source (in source_ids order) with the item.
  const rows = await catalogRowsFor(trx, storeId, [targetId, ...sourceIds], { forUpdate: true });
  const order = new Map(sourceIds.map((id, i) => [id, i]));
  const kept = new Map<number, CatalogRow>();
  for (const row of rows) if (row.supplier_id === targetId) kept.set(Number(row.inventory_item_id), row);
  const sourceRows = rows
    .filter((r) => r.supplier_id !== targetId)
    .sort((a, b) => (order.get(a.supplier_id) ?? 0) - (order.get(b.supplier_id) ?? 0) || a.id - b.id);
  const moveIds: number[] = [];
  const dropIds: number[] = [];
  const pinIds = new Set<number>();
  for (const row of sourceRows) {
    const item = Number(row.inventory_item_id);
    const keeper = kept.get(item);
    if (keeper) {
      dropIds.push(row.id);
      if (row.is_primary && !keeper.is_primary) pinIds.add(keeper.id);
    } else {
      moveIds.push(row.id);
      kept.set(item, row);
    }
  }
  await deleteCatalogRowsById(trx, storeId, dropIds);
  await updateCatalogRowsById(trx, storeId, moveIds, { supplier_id: targetId, updated_at: now });
  await updateCatalogRowsById(trx, storeId, [...pinIds], { is_primary: true, updated_at: now });

  const archivedSources = await updateSuppliers(trx, storeId, sourceIds, {
    archived: true,
    merged_into_id: targetId,
    updated_at: now,
  });
  // Keep the original archived_at of a source that was archived before the merge.
  const newlyArchived = sources.filter((s) => !s.archived).map((s) => s.id);
  const stamped = await updateSuppliers(trx, storeId, newlyArchived, { archived_at: now });
  const finalSources = new Map([...archivedSources, ...stamped].map((r) => [r.id, r]));

  const merged = await updateSupplierRow(trx, storeId, targetId, {
    ...toColumns(fillFromSources(survivor, sources)),
    updated_at: now,
  });

  for (const source of sources) {
    const after = finalSources.get(source.id) as SupplierRow;
    await emitSupplier(ctx, trx, source.archived ? "supplier.updated" : "supplier.archived", after);
  }
  await emitSupplier(ctx, trx, "supplier.merged", merged);
  // Each moved order changed supplier: purchase_order.updated with the order as GET now returns it.
  const orders = await loadPurchaseOrders(
    trx,
    storeId,
    movedOrders.map((o) => o.id),
  );
  for (const [id, order] of orders) {
    await emit(ctx, trx, {
      storeId,
      name: "purchase_order.updated",
      subjectType: "purchase_order",
      subjectId: id,
      data: order,
    });
  }
  return {
    survivor: merged,
    moved: { purchase_orders: movedOrders.length, items: moveIds.length, suppliers: sources.length },
  };
}

// ---------------------------------------------------------------------------------------------------
// Catalog

export interface CatalogRowInput {
  inventory_item_id?: number;
  variant_id?: number;
  supplier_sku?: string | null;
  pack_size?: number;
  pack_unit?: string;
  min_order_qty?: number;
  is_primary?: boolean;
  tiers?: Array<{ min_qty: number; price: number | string }>;
  effective_from?: string;
}

const NO_TIERS = {
  effective_tiers: null,
  effective_from: null,
  effective_currency: null,
  upcoming_tiers: null,
  upcoming_from: null,
  upcoming_currency: null,
};

/** Tiers checked and normalised: unique min_qty, price ≥ 0 with ≤ 8 places, sorted by min_qty. */
function parseTiers(
  tiers: CatalogRowInput["tiers"],
  base: string,
  problems: DetailCollector,
): StoredTier[] | undefined {
  if (tiers === undefined) return undefined;
  const out: StoredTier[] = [];
  const seen = new Map<number, number>();
  tiers.forEach((tier, j) => {
    const field = `${base}.tiers.${j}`;
    const first = seen.get(tier.min_qty);
    if (first !== undefined)
      problems.add(`${field}.min_qty`, "duplicate", `repeats the min_qty of ${base}.tiers.${first}`);
    else seen.set(tier.min_qty, j);
    const parsed = parseDecimalInput(tier.price, { maxPlaces: 8 });
    if (!parsed.ok) problems.add(`${field}.price`, parsed.code, parsed.message);
    else if (parsed.value.gte(MONEY_LIMIT)) problems.add(`${field}.price`, "out_of_range", "is too large");
    else out.push({ min_qty: tier.min_qty, price: parsed.value.toFixed() });
  });
  return out.sort((a, b) => a.min_qty - b.min_qty);
}

function supplierForCatalogWrite(supplier: SupplierRow | undefined): SupplierRow {
  if (!supplier) throw notFound("supplier");
  if (supplier.merged_into_id !== null) {
    throw invalidTransition(
      `Supplier is merged into supplier ${supplier.merged_into_id}; write the catalog of the surviving supplier.`,
    );
  }
  return supplier;
}

/**
 * PUT /suppliers/{id}/catalog. Every row is checked (tiers, and the item named within the store's
 * mirror) before anything is written: one bad row refuses the whole request. Then each row is upserted:
 * fields left out are left alone; `tiers` replaces the price list (with a future `effective_from` only
 * the upcoming set, leaving the one in force); `tiers: []` removes both sets; `is_primary: true` clears
 * other suppliers' pins on the item. Returns the rows as they now stand, in request order.
 */
export async function putCatalog(
  ctx: AppContext,
  trx: Db,
  store: StoreRef,
  supplierId: number,
  rows: readonly CatalogRowInput[],
): Promise<{ rows: CatalogRow[]; today: string }> {
  const supplier = supplierForCatalogWrite(
    await findSupplier(trx, store.id, supplierId, { forUpdate: true }),
  );
  const now = ctx.clock.now();
  const today = localDate(now, store.timezone);
  const problems = new DetailCollector();

  const tiersByRow = rows.map((row, i) => parseTiers(row.tiers, `rows.${i}`, problems));
  const variants = await findVariantsForItems(
    trx,
    store.id,
    rows.flatMap((r) => (r.inventory_item_id === undefined ? [] : [r.inventory_item_id])),
    rows.flatMap((r) => (r.variant_id === undefined ? [] : [r.variant_id])),
  );
  const knownItems = new Set(variants.map((v) => Number(v.inventory_item_id)));
  const itemOfVariant = new Map(variants.map((v) => [Number(v.id), Number(v.inventory_item_id)]));
  const items: number[] = [];
  const rowOfItem = new Map<number, number>();
  rows.forEach((row, i) => {
    const base = `rows.${i}`;
    if (row.effective_from !== undefined && row.tiers === undefined)
      problems.add(`${base}.effective_from`, "requires_tiers", "is only read together with tiers");
    if (row.inventory_item_id === undefined && row.variant_id === undefined) {
      problems.add(`${base}.inventory_item_id`, "required", "inventory_item_id or variant_id is required");
      return;
    }
    let item: number | undefined;
    let field = `${base}.inventory_item_id`;
    if (row.inventory_item_id !== undefined) {
      if (knownItems.has(row.inventory_item_id)) item = row.inventory_item_id;
      else problems.add(field, "not_found", "no such inventory item in this store");
    }
    if (row.variant_id !== undefined) {
      const ofVariant = itemOfVariant.get(row.variant_id);
      if (ofVariant === undefined) {
        problems.add(`${base}.variant_id`, "not_found", "no such variant in this store");
      } else if (row.inventory_item_id === undefined) {
        item = ofVariant;
        field = `${base}.variant_id`;
      } else if (item !== undefined && ofVariant !== item) {
        problems.add(`${base}.variant_id`, "mismatch", "names another inventory item than inventory_item_id");
      }
    }
    if (item === undefined) return;
    const first = rowOfItem.get(item);
    if (first !== undefined) problems.add(field, "duplicate", `names the same item as rows.${first}`);
    else rowOfItem.set(item, i);
    items[i] = item;
  });
  problems.throwIfAny();

  const currency = supplier.currency ?? store.currency;
  const existing = new Map(
    (
      await catalogRowsFor(trx, store.id, [supplierId], {
        inventoryItemIds: [...rowOfItem.keys()],
        forUpdate: true,
      })
    ).map((r) => [Number(r.inventory_item_id), r]),
  );
  const written: CatalogRow[] = [];
  for (const [i, input] of rows.entries()) {
    const item = items[i];
    const current = existing.get(item);
    let tierColumns = current ? promoteDue(current, today) : NO_TIERS;
    const tiers = tiersByRow[i];
    if (tiers !== undefined) {
      if (tiers.length === 0) tierColumns = NO_TIERS;
      else if (input.effective_from !== undefined && input.effective_from > today)
        tierColumns = {
          ...tierColumns,
          upcoming_tiers: tiers,
          upcoming_from: input.effective_from,
          upcoming_currency: currency,
        };
      else
        tierColumns = {
          effective_tiers: tiers,
          effective_from: input.effective_from ?? null,
          effective_currency: currency,
          upcoming_tiers: null,
          upcoming_from: null,
          upcoming_currency: null,
        };
    }
    const set: CatalogUpdate = {
      ...tierColumns,
      effective_tiers: tierColumns.effective_tiers ? JSON.stringify(tierColumns.effective_tiers) : null,
      upcoming_tiers: tierColumns.upcoming_tiers ? JSON.stringify(tierColumns.upcoming_tiers) : null,
      source: "api",
      updated_at: now,
    };
    if (input.supplier_sku !== undefined)
      set.supplier_sku = input.supplier_sku === "" ? null : input.supplier_sku;
    if (input.pack_size !== undefined) set.pack_size = input.pack_size;
    if (input.pack_unit !== undefined) set.pack_unit = input.pack_unit;
    if (input.min_order_qty !== undefined) set.min_order_qty = input.min_order_qty;
    if (input.is_primary !== undefined) set.is_primary = input.is_primary;
    const row = current
      ? await updateCatalogRow(trx, store.id, current.id, set)
      : await insertCatalogRow(trx, {
          ...set,
          effective_tiers: set.effective_tiers ?? null,
          upcoming_tiers: set.upcoming_tiers ?? null,
          effective_from: tierColumns.effective_from,
          effective_currency: tierColumns.effective_currency,
          upcoming_from: tierColumns.upcoming_from,
          upcoming_currency: tierColumns.upcoming_currency,
          supplier_sku: set.supplier_sku ?? null,
          store_id: store.id,
          supplier_id: supplierId,
          inventory_item_id: item,
          created_at: now,
        });
    if (input.is_primary === true) await clearOtherPrimaries(trx, store.id, item, supplierId, now);
    written.push(row);
  }
  return { rows: written, today };
}

/** DELETE /suppliers/{id}/catalog/{inventory_item_id}: the association and its prices go. */
export async function deleteCatalogItem(
  trx: Db,
  storeId: number,
  supplierId: number,
  inventoryItemId: number,
): Promise<void> {
  const supplier = await findSupplier(trx, storeId, supplierId, { forUpdate: true });
  if (!supplier) throw notFound("supplier");
  if (!(await deleteCatalogRow(trx, storeId, supplierId, inventoryItemId)))
    throw notFound("catalog row for that item");
}

/** Admin: mark a supplier as linked (or not) to a supplier network; a linked supplier can't be merged away. */
export async function setNetworkLink(
  trx: Db,
  storeId: number,
  supplierId: number,
  linked: boolean,
): Promise<SupplierRow> {
  const current = await findSupplier(trx, storeId, supplierId, { forUpdate: true });
  if (!current) throw notFound("supplier");
  return updateSupplierRow(trx, storeId, supplierId, { network_linked: linked });
}
