import { sql } from "kysely";
import type { Clock } from "../../clock.ts";
import { insertRows, unnestRows } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";
import { pairIn } from "../../db/pair-in.ts";
import { inTransaction } from "../../db/transaction.ts";
import { type PlatformInventoryLevel, PlatformPermanentError } from "../connector.ts";
import { allocateChanges, chunks, ensureSimStore } from "./shop.ts";

/**
 * The simulated platform's inventory levels: changes an admin makes (as a sale or a recount would),
 * reads, and the locking and numbered writes the stock adjustment shares.
 */

/** A level's key and quantities as the simulator's table holds them. */
interface SimLevel {
  inventory_item_id: number;
  location_id: number;
  available: number;
  on_hand: number;
  committed: number;
  incoming: number;
}

export interface SimLevelView extends SimLevel {
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

export interface LevelRow extends SimLevel {
  exists: boolean;
}

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

/** Locked levels being changed: the row to move of each key, and the rows moved. */
export interface LevelsToChange {
  /** The level's row, locked; a level not stored yet starts at zero (the same row every call). */
  row(item: number, location: number): LevelRow;
  /** The rows `row` handed out, in the order first asked for: what writeLevels takes. */
  touched(): LevelRow[];
}

/** Locks the levels of `keys` (in item, location order) to change some of them. */
export async function lockLevelsToChange(
  trx: Db,
  storeId: number,
  keys: ReadonlyArray<{ item: number; location: number }>,
): Promise<LevelsToChange> {
  const levels = await lockLevels(trx, storeId, keys);
  const touched = new Map<string, LevelRow>();
  return {
    row(item, location) {
      const key = levelKey(item, location);
      const row = levels.get(key) ?? {
        inventory_item_id: item,
        location_id: location,
        available: 0,
        on_hand: 0,
        committed: 0,
        incoming: 0,
        exists: false,
      };
      levels.set(key, row);
      touched.set(key, row);
      return row;
    },
    touched: () => [...touched.values()],
  };
}

/**
 * Writes levels with fresh change numbers (inserting the missing ones); returns them as reported.
 * `first`: change numbers already allocated for them (from `first` on), else allocated here.
 */
export async function writeLevels(
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

export async function knownItems(trx: Db, storeId: number, itemIds: number[]): Promise<Set<number>> {
  if (itemIds.length === 0) return new Set();
  const rows = await trx
    .selectFrom("sim_variants")
    .select("inventory_item_id")
    .where("store_id", "=", storeId)
    .where(sql<boolean>`inventory_item_id = any(${[...new Set(itemIds)]}::bigint[])`)
    .execute();
  return new Set(rows.map((r) => r.inventory_item_id));
}

export async function knownLocations(trx: Db, storeId: number, locationIds: number[]): Promise<Set<number>> {
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
 * Admin control: set or adjust platform-side quantities. `available` moves on_hand
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
    const levels = await lockLevelsToChange(trx, storeId, keys);
    for (const c of changes) {
      const row = levels.row(c.inventory_item_id, c.location_id);
      const name = c.name ?? "available";
      const current = name === "available" ? row.available : name === "on_hand" ? row.on_hand : row.incoming;
      const delta = c.set !== undefined ? c.set - current : (c.adjust ?? 0);
      if (name === "incoming") row.incoming += delta;
      else {
        row.available += delta;
        row.on_hand += delta;
      }
    }
    const touched = levels.touched();
    await writeLevels(trx, clock, storeId, touched);
    return readSimLevels(
      trx,
      storeId,
      touched.map((r) => ({ item: r.inventory_item_id, location: r.location_id })),
    );
  });
}

/** Platform-side levels with their item's unit cost, in item then location order. */
function selectSimLevels(db: Db, storeId: number) {
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
    .orderBy("l.inventory_item_id")
    .orderBy("l.location_id");
}

async function readSimLevels(
  db: Db,
  storeId: number,
  keys: ReadonlyArray<{ item: number; location: number }>,
): Promise<SimLevelView[]> {
  if (keys.length === 0) return [];
  return selectSimLevels(db, storeId)
    .where(
      pairIn(
        "l.inventory_item_id",
        "l.location_id",
        keys.map((k) => [k.item, k.location] as const),
      ),
    )
    .execute();
}

/** Admin read: platform-side levels with the item unit cost, optionally filtered. */
export async function listSimLevels(
  db: Db,
  storeId: number,
  filter: { inventory_item_id?: number; location_id?: number },
): Promise<SimLevelView[]> {
  let q = selectSimLevels(db, storeId);
  if (filter.inventory_item_id !== undefined)
    q = q.where("l.inventory_item_id", "=", filter.inventory_item_id);
  if (filter.location_id !== undefined) q = q.where("l.location_id", "=", filter.location_id);
  return q.execute();
}

/** What one adjustment adds to a level: its change to each quantity, summed over the changes. */
export interface LevelDeltaRow {
  inventory_item_id: number;
  location_id: number;
  available: number;
  on_hand: number;
  incoming: number;
}

/**
 * An adjustment's changes summed by level, in the order each level is first named (the order its
 * change numbers are handed out): `available` moves on_hand with it, `on_hand` and `incoming` alone.
 */
export function levelDeltas(
  changes: ReadonlyArray<{
    name: "available" | "on_hand" | "incoming";
    inventoryItemId: number;
    locationId: number;
    delta: number;
  }>,
): LevelDeltaRow[] {
  const byKey = new Map<string, LevelDeltaRow>();
  for (const c of changes) {
    const key = levelKey(c.inventoryItemId, c.locationId);
    let row = byKey.get(key);
    if (!row) {
      row = {
        inventory_item_id: c.inventoryItemId,
        location_id: c.locationId,
        available: 0,
        on_hand: 0,
        incoming: 0,
      };
      byKey.set(key, row);
    }
    if (c.name === "available") {
      row.available += c.delta;
      row.on_hand += c.delta;
    } else if (c.name === "on_hand") row.on_hand += c.delta;
    else row.incoming += c.delta;
  }
  return [...byKey.values()];
}

/**
 * Adds `deltas` to the shop's levels (a missing level starts at zero) in one statement that also
 * takes their change numbers, and `extra` more after them, from the shop's counter; answers the
 * levels as reported, in the order given, and the first number taken (null: no level, nothing taken).
 * The caller holds the shop's row locked (every write of the shop's levels does), so the rows need no
 * lock of their own first: no other writer can change them between this statement's read and write.
 */
export async function addToLevels(
  trx: Db,
  clock: Clock,
  storeId: number,
  deltas: readonly LevelDeltaRow[],
  extra: number,
): Promise<{ reported: PlatformInventoryLevel[]; first: number | null }> {
  if (deltas.length === 0) return { reported: [], first: null };
  const count = deltas.length + extra;
  const now = clock.now();
  const { rows } = await sql<SimLevel & { change_seq: number | string }>`with shop as (
      update sim_stores set change_seq = change_seq + ${count}::int where store_id = ${storeId}
      returning change_seq - ${count}::int as base
    )
    insert into sim_inventory_levels as l (store_id, inventory_item_id, location_id, available, on_hand,
      committed, incoming, change_seq, created_at, updated_at)
    select ${storeId}::int, d.item, d.location, d.available, d.on_hand, 0, d.incoming, shop.base + d.n,
      ${now}::timestamptz, ${now}::timestamptz
    from shop, (${unnestRows(
      deltas.map((d, i) => ({ ...d, n: i + 1 })),
      [
        ["item", "bigint", (d) => d.inventory_item_id],
        ["location", "bigint", (d) => d.location_id],
        ["available", "int", (d) => d.available],
        ["on_hand", "int", (d) => d.on_hand],
        ["incoming", "int", (d) => d.incoming],
        ["n", "int", (d) => d.n],
      ],
    )}) as d(item, location, available, on_hand, incoming, n)
    order by d.item, d.location
    on conflict (store_id, inventory_item_id, location_id) do update set
      available = l.available + excluded.available, on_hand = l.on_hand + excluded.on_hand,
      incoming = l.incoming + excluded.incoming, change_seq = excluded.change_seq,
      updated_at = excluded.updated_at
    returning l.inventory_item_id, l.location_id, l.available, l.on_hand, l.committed, l.incoming,
      l.change_seq`.execute(trx);
  if (rows.length !== deltas.length)
    throw new PlatformPermanentError(`the simulated platform has no shop for store ${storeId}`);
  const byKey = new Map(rows.map((r) => [levelKey(Number(r.inventory_item_id), Number(r.location_id)), r]));
  const reported = deltas.map((d) => {
    const r = byKey.get(levelKey(d.inventory_item_id, d.location_id)) as (typeof rows)[number];
    return {
      inventoryItemId: d.inventory_item_id,
      locationId: d.location_id,
      available: r.available,
      onHand: r.on_hand,
      committed: r.committed,
      incoming: r.incoming,
      version: Number(r.change_seq),
      updatedAt: now,
    };
  });
  return { reported, first: reported[0].version };
}
