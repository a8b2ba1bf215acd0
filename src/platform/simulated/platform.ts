import { sql } from "kysely";
import type { Clock } from "../../clock.ts";
import { insertRows, unnestRows } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";
import { pairIn } from "../../db/pair-in.ts";
import { inTransaction } from "../../db/transaction.ts";
import {
  type CatalogChanges,
  type InventoryAdjustment,
  type InventoryAdjustResult,
  type PlatformInventoryLevel,
  PlatformPermanentError,
  type PlatformProductOption,
  PlatformTransientError,
  type ProductStatus,
} from "../connector.ts";

/**
 * The simulated commerce platform: the "platform side" tables (`sim_*`) and what a platform does with
 * them. Every write locks the shop's `sim_stores` row and takes consecutive `change_seq` values from
 * it, so change numbers are handed out in commit order: a reader that saw change N saw every change
 * before N, and the watermark of the change feed never skips one.
 */

export type FaultMode = "ok" | "down" | "reject";

const INSERT_CHUNK = 1000;

function chunks<T>(items: readonly T[], size = INSERT_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export async function ensureSimStore(trx: Db, storeId: number): Promise<void> {
  await trx
    .insertInto("sim_stores")
    .values({ store_id: storeId })
    .onConflict((oc) => oc.column("store_id").doNothing())
    .execute();
}

/** Locks the shop and reserves `count` consecutive change numbers; returns the first. */
async function allocateChanges(trx: Db, storeId: number, count: number): Promise<number> {
  const row = await trx
    .updateTable("sim_stores")
    .set((eb) => ({ change_seq: eb("change_seq", "+", count) }))
    .where("store_id", "=", storeId)
    .returning("change_seq")
    .executeTakeFirst();
  if (!row) throw new PlatformPermanentError(`the simulated platform has no shop for store ${storeId}`);
  return Number(row.change_seq) - count + 1;
}

async function newIds(trx: Db, count: number): Promise<number[]> {
  if (count === 0) return [];
  const result = await sql<{ id: number }>`
    select nextval('sim_object_ids')::int8 as id from generate_series(1, ${count}::int)`.execute(trx);
  return result.rows.map((r) => Number(r.id));
}

function slugify(text: string): string {
  return (
    text
      .toLowerCase()
      .normalize("NFKD")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 80) || "product"
  );
}

// ---------------------------------------------------------------------------------------------------
// Locations

export interface NewSimLocation {
  name: string;
  active?: boolean;
  fulfillmentService?: string;
  address?: Partial<Record<string, string | null>>;
}

const EMPTY_ADDRESS = {
  line1: null,
  line2: null,
  city: null,
  province_code: null,
  zip: null,
  country: null,
  country_code: null,
  phone: null,
};

export async function createSimLocations(
  db: Db,
  clock: Clock,
  storeId: number,
  locations: readonly NewSimLocation[],
): Promise<number[]> {
  return inTransaction(db, async (trx) => {
    await ensureSimStore(trx, storeId);
    const first = await allocateChanges(trx, storeId, locations.length);
    const ids = await newIds(trx, locations.length);
    const now = clock.now();
    await trx
      .insertInto("sim_locations")
      .values(
        locations.map((l, i) => ({
          store_id: storeId,
          id: ids[i],
          name: l.name,
          active: l.active ?? true,
          fulfillment_service: l.fulfillmentService ?? "manual",
          address: JSON.stringify({ ...EMPTY_ADDRESS, ...l.address }),
          change_seq: first + i,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    return ids;
  });
}

// ---------------------------------------------------------------------------------------------------
// Products, variants, inventory items, levels

export interface NewSimVariant {
  title: string;
  sku?: string | null;
  barcode?: string | null;
  /** Decimal strings. */
  price: string;
  compareAtPrice?: string | null;
  unitCost?: string | null;
  weightGrams?: number;
  tracked?: boolean;
  inventoryPolicy?: string;
  taxable?: boolean;
  imageUrl?: string | null;
}

export interface NewSimProduct {
  title: string;
  vendor?: string | null;
  productType?: string | null;
  status?: ProductStatus;
  tags?: string[];
  options?: PlatformProductOption[];
  imageUrl?: string | null;
  variants: NewSimVariant[];
}

export interface StockFor {
  available: number;
  committed?: number;
  incoming?: number;
}

export interface CreatedSimProduct {
  id: number;
  variants: Array<{ id: number; inventoryItemId: number }>;
}

/**
 * Creates products with their variants and inventory items, and a level for every item at every active
 * location (`stock` gives the starting quantities; default 0). Bulk multi-row inserts, so a catalog of
 * many thousand variants is made in seconds.
 */
export async function createSimProducts(
  db: Db,
  clock: Clock,
  storeId: number,
  currency: string,
  products: readonly NewSimProduct[],
  stock?: (context: {
    productIndex: number;
    variantIndex: number;
    locationIndex: number;
    locationId: number;
    tracked: boolean;
  }) => StockFor,
): Promise<CreatedSimProduct[]> {
  return inTransaction(db, async (trx) => {
    await ensureSimStore(trx, storeId);
    const locations = await trx
      .selectFrom("sim_locations")
      .select("id")
      .where("store_id", "=", storeId)
      .where("active", "=", true)
      .orderBy("id")
      .execute();
    const variantCount = products.reduce((n, p) => n + p.variants.length, 0);
    const levelCount = variantCount * locations.length;
    let seq = await allocateChanges(trx, storeId, products.length + variantCount + levelCount);
    const ids = await newIds(trx, products.length + 2 * variantCount);
    let nextId = 0;
    const now = clock.now();

    const productRows = [];
    const variantRows = [];
    const levelRows = [];
    const created: CreatedSimProduct[] = [];
    for (const p of products) {
      const productId = ids[nextId++];
      const handle = `${slugify(p.title)}-${productId}`;
      productRows.push({
        store_id: storeId,
        id: productId,
        title: p.title,
        handle,
        vendor: p.vendor ?? null,
        product_type: p.productType ?? null,
        status: p.status ?? "active",
        tags: p.tags ?? [],
        options: JSON.stringify(p.options ?? [{ name: "Title", position: 1, values: ["Default Title"] }]),
        image_url: p.imageUrl ?? null,
        change_seq: seq++,
        created_at: now,
        updated_at: now,
      });
      created.push({ id: productId, variants: [] });
      for (const [vi, v] of p.variants.entries()) {
        const variantId = ids[nextId++];
        const itemId = ids[nextId++];
        created[created.length - 1].variants.push({ id: variantId, inventoryItemId: itemId });
        variantRows.push({
          store_id: storeId,
          id: variantId,
          product_id: productId,
          inventory_item_id: itemId,
          title: v.title,
          sku: v.sku ?? null,
          barcode: v.barcode ?? null,
          position: vi + 1,
          price: v.price,
          compare_at_price: v.compareAtPrice ?? null,
          weight_grams: v.weightGrams ?? 0,
          inventory_policy: v.inventoryPolicy ?? "deny",
          taxable: v.taxable ?? true,
          image_url: v.imageUrl ?? null,
          tracked: v.tracked ?? true,
          unit_cost: v.unitCost ?? null,
          unit_cost_currency: v.unitCost ? currency : null,
          change_seq: 0,
          created_at: now,
          updated_at: now,
        });
      }
    }
    for (const row of variantRows) row.change_seq = seq++;
    let vIndex = 0;
    for (const [pi, p] of products.entries()) {
      for (const [vi, v] of p.variants.entries()) {
        const itemId = variantRows[vIndex++].inventory_item_id;
        for (const [li, location] of locations.entries()) {
          const s = stock?.({
            productIndex: pi,
            variantIndex: vi,
            locationIndex: li,
            locationId: location.id,
            tracked: v.tracked ?? true,
          }) ?? { available: 0 };
          const committed = s.committed ?? 0;
          levelRows.push({
            store_id: storeId,
            inventory_item_id: itemId,
            location_id: location.id,
            available: s.available,
            on_hand: s.available + committed,
            committed,
            incoming: s.incoming ?? 0,
            change_seq: seq++,
            created_at: now,
            updated_at: now,
          });
        }
      }
    }
    for (const part of chunks(productRows)) await trx.insertInto("sim_products").values(part).execute();
    for (const part of chunks(variantRows, 500)) await trx.insertInto("sim_variants").values(part).execute();
    for (const part of chunks(levelRows, 2000))
      await trx.insertInto("sim_inventory_levels").values(part).execute();
    return created;
  });
}

// ---------------------------------------------------------------------------------------------------
// Inventory: admin changes (as a sale or a recount would) and reads

export interface SimLevelView {
  inventory_item_id: number;
  location_id: number;
  available: number;
  on_hand: number;
  committed: number;
  incoming: number;
  unit_cost: string | null;
}

export interface SimInventoryChange {
  inventory_item_id: number;
  location_id: number;
  name?: "available" | "on_hand" | "incoming";
  set?: number;
  adjust?: number;
}

export class SimInputError extends Error {
  constructor(
    readonly field: string,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type LevelRow = {
  inventory_item_id: number;
  location_id: number;
  available: number;
  on_hand: number;
  committed: number;
  incoming: number;
  exists: boolean;
};

const levelKey = (item: number, location: number) => `${item}:${location}`;

async function lockLevels(
  trx: Db,
  storeId: number,
  keys: ReadonlyArray<{ item: number; location: number }>,
): Promise<Map<string, LevelRow>> {
  const map = new Map<string, LevelRow>();
  if (keys.length === 0) return map;
  const rows = await trx
    .selectFrom("sim_inventory_levels")
    .select(["inventory_item_id", "location_id", "available", "on_hand", "committed", "incoming"])
    .where("store_id", "=", storeId)
    .where(
      pairIn(
        "inventory_item_id",
        "location_id",
        keys.map((k) => [k.item, k.location] as const),
      ),
    )
    .orderBy("inventory_item_id")
    .orderBy("location_id")
    .forUpdate()
    .execute();
  for (const r of rows) map.set(levelKey(r.inventory_item_id, r.location_id), { ...r, exists: true });
  return map;
}

/**
 * Writes levels with fresh change numbers (inserting the missing ones); returns them as reported.
 * `first`: change numbers already allocated for them (from `first` on), else allocated here.
 */
async function writeLevels(
  trx: Db,
  clock: Clock,
  storeId: number,
  rows: LevelRow[],
  allocated?: number,
): Promise<PlatformInventoryLevel[]> {
  if (rows.length === 0) return [];
  const first = allocated ?? (await allocateChanges(trx, storeId, rows.length));
  const now = clock.now();
  const values = rows.map((r, i) => ({
    store_id: storeId,
    inventory_item_id: r.inventory_item_id,
    location_id: r.location_id,
    available: r.available,
    on_hand: r.on_hand,
    committed: r.committed,
    incoming: r.incoming,
    change_seq: first + i,
    created_at: now,
    updated_at: now,
  }));
  for (const part of chunks(values, 2000)) {
    await insertRows(
      "sim_inventory_levels",
      part,
      [
        ["store_id", "int", (v) => v.store_id],
        ["inventory_item_id", "bigint", (v) => v.inventory_item_id],
        ["location_id", "bigint", (v) => v.location_id],
        ["available", "int", (v) => v.available],
        ["on_hand", "int", (v) => v.on_hand],
        ["committed", "int", (v) => v.committed],
        ["incoming", "int", (v) => v.incoming],
        ["change_seq", "bigint", (v) => v.change_seq],
        ["created_at", "timestamptz", (v) => v.created_at],
        ["updated_at", "timestamptz", (v) => v.updated_at],
      ],
      sql`on conflict (store_id, inventory_item_id, location_id) do update set
        available = excluded.available, on_hand = excluded.on_hand, committed = excluded.committed,
        incoming = excluded.incoming, change_seq = excluded.change_seq, updated_at = excluded.updated_at`,
    ).execute(trx);
  }
  return values.map((v) => ({
    inventoryItemId: v.inventory_item_id,
    locationId: v.location_id,
    available: v.available,
    onHand: v.on_hand,
    committed: v.committed,
    incoming: v.incoming,
    version: v.change_seq,
    updatedAt: now,
  }));
}

async function knownItems(trx: Db, storeId: number, itemIds: number[]): Promise<Set<number>> {
  if (itemIds.length === 0) return new Set();
  const rows = await trx
    .selectFrom("sim_variants")
    .select("inventory_item_id")
    .where("store_id", "=", storeId)
    .where(sql<boolean>`inventory_item_id = any(${[...new Set(itemIds)]}::bigint[])`)
    .execute();
  return new Set(rows.map((r) => r.inventory_item_id));
}

async function knownLocations(trx: Db, storeId: number, locationIds: number[]): Promise<Set<number>> {
  if (locationIds.length === 0) return new Set();
  const rows = await trx
    .selectFrom("sim_locations")
    .select("id")
    .where("store_id", "=", storeId)
    .where("id", "in", [...new Set(locationIds)])
    .execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * Admin control (decisions §11): set or adjust platform-side quantities. `available` moves on_hand
 * by the same amount (a sale is `adjust: -n` on available); `on_hand` moves available with it (a
 * recount); `incoming` moves alone. Throws SimInputError for an unknown item or location.
 */
export async function changeSimInventory(
  db: Db,
  clock: Clock,
  storeId: number,
  changes: readonly SimInventoryChange[],
): Promise<SimLevelView[]> {
  return inTransaction(db, async (trx) => {
    await ensureSimStore(trx, storeId);
    await trx
      .selectFrom("sim_stores")
      .select("store_id")
      .where("store_id", "=", storeId)
      .forUpdate()
      .execute();
    const items = await knownItems(
      trx,
      storeId,
      changes.map((c) => c.inventory_item_id),
    );
    const locations = await knownLocations(
      trx,
      storeId,
      changes.map((c) => c.location_id),
    );
    for (const [i, c] of changes.entries()) {
      if (!items.has(c.inventory_item_id))
        throw new SimInputError(`changes.${i}.inventory_item_id`, "not_found", "no such inventory item");
      if (!locations.has(c.location_id))
        throw new SimInputError(`changes.${i}.location_id`, "not_found", "no such location");
      if ((c.set === undefined) === (c.adjust === undefined))
        throw new SimInputError(`changes.${i}`, "invalid_value", "give exactly one of set and adjust");
    }
    const keys = changes.map((c) => ({ item: c.inventory_item_id, location: c.location_id }));
    const levels = await lockLevels(trx, storeId, keys);
    const touched = new Map<string, LevelRow>();
    for (const c of changes) {
      const key = levelKey(c.inventory_item_id, c.location_id);
      const row = levels.get(key) ?? {
        inventory_item_id: c.inventory_item_id,
        location_id: c.location_id,
        available: 0,
        on_hand: 0,
        committed: 0,
        incoming: 0,
        exists: false,
      };
      levels.set(key, row);
      touched.set(key, row);
      const name = c.name ?? "available";
      const current = name === "available" ? row.available : name === "on_hand" ? row.on_hand : row.incoming;
      const delta = c.set !== undefined ? c.set - current : (c.adjust ?? 0);
      if (name === "incoming") row.incoming += delta;
      else {
        row.available += delta;
        row.on_hand += delta;
      }
    }
    await writeLevels(trx, clock, storeId, [...touched.values()]);
    return readSimLevels(
      trx,
      storeId,
      [...touched.values()].map((r) => ({ item: r.inventory_item_id, location: r.location_id })),
    );
  });
}

async function readSimLevels(
  db: Db,
  storeId: number,
  keys: ReadonlyArray<{ item: number; location: number }>,
): Promise<SimLevelView[]> {
  if (keys.length === 0) return [];
  return db
    .selectFrom("sim_inventory_levels as l")
    .innerJoin("sim_variants as v", "v.inventory_item_id", "l.inventory_item_id")
    .select([
      "l.inventory_item_id",
      "l.location_id",
      "l.available",
      "l.on_hand",
      "l.committed",
      "l.incoming",
      "v.unit_cost",
    ])
    .where("l.store_id", "=", storeId)
    .where(
      pairIn(
        "l.inventory_item_id",
        "l.location_id",
        keys.map((k) => [k.item, k.location] as const),
      ),
    )
    .orderBy("l.inventory_item_id")
    .orderBy("l.location_id")
    .execute();
}

/** Admin read: platform-side levels with the item unit cost, optionally filtered. */
export async function listSimLevels(
  db: Db,
  storeId: number,
  filter: { inventory_item_id?: number; location_id?: number },
): Promise<SimLevelView[]> {
  let q = db
    .selectFrom("sim_inventory_levels as l")
    .innerJoin("sim_variants as v", "v.inventory_item_id", "l.inventory_item_id")
    .select([
      "l.inventory_item_id",
      "l.location_id",
      "l.available",
      "l.on_hand",
      "l.committed",
      "l.incoming",
      "v.unit_cost",
    ])
    .where("l.store_id", "=", storeId);
  if (filter.inventory_item_id !== undefined)
    q = q.where("l.inventory_item_id", "=", filter.inventory_item_id);
  if (filter.location_id !== undefined) q = q.where("l.location_id", "=", filter.location_id);
  return q.orderBy("l.inventory_item_id").orderBy("l.location_id").execute();
}

// ---------------------------------------------------------------------------------------------------
// Faults

export async function setSimFaults(
  db: Db,
  storeId: number,
  mode: FaultMode,
  count: number | null,
): Promise<{ mode: FaultMode; remaining: number | null }> {
  return inTransaction(db, async (trx) => {
    await ensureSimStore(trx, storeId);
    const row = await trx
      .updateTable("sim_stores")
      .set({ fault_mode: mode, fault_remaining: mode === "ok" ? null : count })
      .where("store_id", "=", storeId)
      .returning(["fault_mode", "fault_remaining"])
      .executeTakeFirstOrThrow();
    return { mode: row.fault_mode, remaining: row.fault_remaining };
  });
}

export async function getSimFaults(
  db: Db,
  storeId: number,
): Promise<{ mode: FaultMode; remaining: number | null }> {
  const row = await db
    .selectFrom("sim_stores")
    .select(["fault_mode", "fault_remaining"])
    .where("store_id", "=", storeId)
    .executeTakeFirst();
  return { mode: row?.fault_mode ?? "ok", remaining: row?.fault_remaining ?? null };
}

/**
 * Consumes one injected fault, if any is armed, in its own transaction (the push then fails). The
 * usual case, nothing armed, is one unlocked read.
 */
async function takeFault(db: Db, storeId: number): Promise<FaultMode> {
  const armed = await db
    .selectFrom("sim_stores")
    .select("fault_mode")
    .where("store_id", "=", storeId)
    .executeTakeFirst();
  if (!armed || armed.fault_mode === "ok") return "ok";
  return inTransaction(db, async (trx) => {
    const row = await trx
      .selectFrom("sim_stores")
      .select(["fault_mode", "fault_remaining"])
      .where("store_id", "=", storeId)
      .forUpdate()
      .executeTakeFirst();
    if (!row || row.fault_mode === "ok") return "ok";
    if (row.fault_remaining === null) return row.fault_mode;
    if (row.fault_remaining <= 0) return "ok";
    const remaining = row.fault_remaining - 1;
    await trx
      .updateTable("sim_stores")
      .set(remaining === 0 ? { fault_mode: "ok", fault_remaining: null } : { fault_remaining: remaining })
      .where("store_id", "=", storeId)
      .execute();
    return row.fault_mode;
  });
}

// ---------------------------------------------------------------------------------------------------
// The connector's two calls: change feed and stock adjustment

/** Stock adjustment as the platform applies it: idempotent on the key, faults first. */
export async function applySimAdjustment(
  db: Db,
  clock: Clock,
  storeId: number,
  adjustment: InventoryAdjustment,
): Promise<InventoryAdjustResult> {
  if (!adjustment.idempotencyKey) throw new PlatformPermanentError("an idempotency key is required");
  const fault = await takeFault(db, storeId);
  if (fault === "down") throw new PlatformTransientError("platform unavailable (simulated outage)");
  if (fault === "reject") throw new PlatformPermanentError("rejected by the platform (simulated refusal)");
  return inTransaction(db, async (trx) => {
    const shop = await trx
      .selectFrom("sim_stores")
      .select("store_id")
      .where("store_id", "=", storeId)
      .forUpdate()
      .executeTakeFirst();
    if (!shop) throw new PlatformPermanentError(`unknown shop for store ${storeId}`);
    const seen = await trx
      .selectFrom("sim_push_keys")
      .select("result")
      .where("store_id", "=", storeId)
      .where("key", "=", adjustment.idempotencyKey)
      .executeTakeFirst();
    if (seen) {
      const stored = seen.result as { levels: Array<PlatformInventoryLevel & { updatedAt: string }> };
      return {
        replayed: true,
        levels: stored.levels.map((l) => ({ ...l, updatedAt: new Date(l.updatedAt) })),
      };
    }
    const itemIds = [
      ...adjustment.changes.map((c) => c.inventoryItemId),
      ...adjustment.itemCosts.map((c) => c.inventoryItemId),
    ];
    const items = await knownItems(trx, storeId, itemIds);
    const missingItem = itemIds.find((id) => !items.has(id));
    if (missingItem !== undefined) throw new PlatformPermanentError(`unknown inventory item ${missingItem}`);
    const locationIds = adjustment.changes.map((c) => c.locationId);
    const locations = await knownLocations(trx, storeId, locationIds);
    const missingLocation = locationIds.find((id) => !locations.has(id));
    if (missingLocation !== undefined)
      throw new PlatformPermanentError(`unknown location ${missingLocation}`);

    const levels = await lockLevels(
      trx,
      storeId,
      adjustment.changes.map((c) => ({ item: c.inventoryItemId, location: c.locationId })),
    );
    const touched = new Map<string, LevelRow>();
    for (const c of adjustment.changes) {
      const key = levelKey(c.inventoryItemId, c.locationId);
      const row = levels.get(key) ?? {
        inventory_item_id: c.inventoryItemId,
        location_id: c.locationId,
        available: 0,
        on_hand: 0,
        committed: 0,
        incoming: 0,
        exists: false,
      };
      levels.set(key, row);
      touched.set(key, row);
      if (c.name === "available") {
        row.available += c.delta;
        row.on_hand += c.delta;
      } else if (c.name === "on_hand") row.on_hand += c.delta;
      else row.incoming += c.delta;
    }
    // The last cost given for an item wins, as if the costs were set one after the other.
    const costs = [...new Map(adjustment.itemCosts.map((c) => [c.inventoryItemId, c])).values()];
    // One allocation of change numbers: the levels' first, then the costs'.
    const first = await allocateChanges(trx, storeId, touched.size + costs.length);
    const reported = await writeLevels(trx, clock, storeId, [...touched.values()], first);
    if (costs.length > 0) {
      const firstCost = first + touched.size;
      const numbered = costs.map((c, i) => ({ ...c, seq: firstCost + i }));
      // The cost is the item's, not the variant's: the variant keeps its change number and updated_at.
      await sql`update sim_variants as v
        set unit_cost = c.unit_cost, unit_cost_currency = c.currency, cost_seq = c.seq
        from (${unnestRows(numbered, [
          ["item", "bigint", (c) => c.inventoryItemId],
          ["unit_cost", "numeric", (c) => c.unitCost],
          ["currency", "text", (c) => c.currency],
          ["seq", "bigint", (c) => c.seq],
        ])}) as c(item, unit_cost, currency, seq)
        where v.store_id = ${storeId} and v.inventory_item_id = c.item
          and v.inventory_item_id = any(${costs.map((c) => c.inventoryItemId)}::bigint[])`.execute(trx);
    }
    await trx
      .insertInto("sim_push_keys")
      .values({
        store_id: storeId,
        key: adjustment.idempotencyKey,
        result: JSON.stringify({ levels: reported }),
        created_at: clock.now(),
      })
      .execute();
    return { replayed: false, levels: reported };
  });
}

/** The change feed: everything with a change number after the watermark, up to `limit` changes. */
export async function listSimChanges(
  db: Db,
  storeId: number,
  watermark: string | null,
  limit: number,
): Promise<CatalogChanges> {
  const after = watermark === null ? 0 : Number(watermark);
  if (!Number.isSafeInteger(after) || after < 0) throw new PlatformPermanentError("bad watermark");
  const shop = await db
    .selectFrom("sim_stores")
    .select("change_seq")
    .where("store_id", "=", storeId)
    .executeTakeFirst();
  const latest = Number(shop?.change_seq ?? 0);
  const upTo = Math.min(latest, after + limit);
  if (upTo <= after)
    return {
      products: [],
      variants: [],
      locations: [],
      levels: [],
      itemCosts: [],
      watermark: String(after),
      hasMore: false,
    };
  const [products, variants, locations, levels, costs] = await Promise.all([
    db
      .selectFrom("sim_products")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("change_seq", ">", after)
      .where("change_seq", "<=", upTo)
      .orderBy("change_seq")
      .execute(),
    db
      .selectFrom("sim_variants")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("change_seq", ">", after)
      .where("change_seq", "<=", upTo)
      .orderBy("change_seq")
      .execute(),
    db
      .selectFrom("sim_locations")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("change_seq", ">", after)
      .where("change_seq", "<=", upTo)
      .orderBy("change_seq")
      .execute(),
    db
      .selectFrom("sim_inventory_levels")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("change_seq", ">", after)
      .where("change_seq", "<=", upTo)
      .orderBy("change_seq")
      .execute(),
    db
      .selectFrom("sim_variants")
      .select(["inventory_item_id", "unit_cost", "unit_cost_currency"])
      .where("store_id", "=", storeId)
      .where("cost_seq", ">", after)
      .where("cost_seq", "<=", upTo)
      .orderBy("cost_seq")
      .execute(),
  ]);
  return {
    products: products.map((p) => ({
      id: p.id,
      title: p.title,
      handle: p.handle,
      vendor: p.vendor,
      productType: p.product_type,
      status: p.status as ProductStatus,
      tags: p.tags,
      options: p.options as PlatformProductOption[],
      imageUrl: p.image_url,
      createdAt: p.created_at,
      updatedAt: p.updated_at,
    })),
    variants: variants.map((v) => ({
      id: v.id,
      productId: v.product_id,
      title: v.title,
      sku: v.sku,
      barcode: v.barcode,
      position: v.position,
      price: v.price,
      compareAtPrice: v.compare_at_price,
      weightGrams: v.weight_grams,
      inventoryPolicy: v.inventory_policy,
      taxable: v.taxable,
      imageUrl: v.image_url,
      inventoryItem: {
        id: v.inventory_item_id,
        tracked: v.tracked,
        unitCost: v.unit_cost,
        unitCostCurrency: v.unit_cost_currency,
      },
      createdAt: v.created_at,
      updatedAt: v.updated_at,
    })),
    locations: locations.map((l) => ({
      id: l.id,
      name: l.name,
      active: l.active,
      fulfillmentService: l.fulfillment_service,
      address: { ...EMPTY_ADDRESS, ...l.address },
      createdAt: l.created_at,
      updatedAt: l.updated_at,
    })),
    levels: levels.map((l) => ({
      inventoryItemId: l.inventory_item_id,
      locationId: l.location_id,
      available: l.available,
      onHand: l.on_hand,
      committed: l.committed,
      incoming: l.incoming,
      version: Number(l.change_seq),
      updatedAt: l.updated_at,
    })),
    itemCosts: costs.map((c) => ({
      inventoryItemId: c.inventory_item_id,
      unitCost: c.unit_cost,
      currency: c.unit_cost_currency,
    })),
    watermark: String(upTo),
    hasMore: upTo < latest,
  };
}

/** Stores on the simulated platform whose change feed is ahead of the given watermarks. */
export async function simStoresWithChanges(db: Db): Promise<number[]> {
  const rows = await db
    .selectFrom("sim_stores as s")
    .leftJoin("mirror_sync_states as m", "m.store_id", "s.store_id")
    .select("s.store_id")
    .where((eb) =>
      eb.or([
        eb("m.watermark", "is", null),
        eb("s.change_seq", ">", sql<number>`cast(${sql.ref("m.watermark")} as bigint)`),
      ]),
    )
    .execute();
  return rows.map((r) => r.store_id);
}
