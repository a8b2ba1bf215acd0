import { type RawBuilder, sql } from "kysely";
import type { AppContext } from "../../context.ts";
import { arrayParam, insertRows } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";
import {
  type AlertRulesRow,
  alertRulesColumns,
  alertRulesOf,
  emitCrossings,
  type LevelChange,
} from "./level-alerts.ts";
import { countByLevel, keyOf, type LevelDelta, sumByLevel } from "./level-keys.ts";

/** An added level as a JSON array: item, location, available, on_hand, incoming, inserted. */
type AddedLevelArray = [number, number, number, number, number, boolean];

/** The columns `levelsAdded` selects beside the caller's own, as the driver gives them. */
export type LevelsAddedRow = AlertRulesRow & { levels: AddedLevelArray[] | null; levels_written?: number };

/** The upsert of recorded movements into the levels, for a caller's statement (`recordStockMovements`). */
export interface LevelsAdded {
  /** The upsert, to put in a WITH under the name `cte`. */
  upsert: RawBuilder<unknown>;
  /** Selects the upserted rows and the store's alert rules for the items, from the WITH named `cte`. */
  columns(cte: string): RawBuilder<unknown>;
  /**
   * Updating levels the caller locked: how many rows the WITH named `cte` wrote, as `levels_written`,
   * checked by emitCrossings (a level missing, which the caller's lock said could not be, fails the
   * write rather than lose its deltas). Null for the upsert. To come last in the statement's select
   * list (see recordStockMovementsWith).
   */
  written(cte: string): RawBuilder<unknown> | null;
  /** After the statement ran: the item events for the crossings, in the same transaction. */
  emitCrossings(ctx: AppContext, trx: Db, row: LevelsAddedRow): Promise<void>;
}

/**
 * Adds newly recorded movements to the mirror levels they touch, in one upsert: a movement is
 * unacknowledged when it is recorded, so it adds its deltas to the visible level and leaves the
 * platform's part alone, which is exactly what a full refresh would compute, without reading the level
 * rows or summing the unacknowledged movements first. Missing rows are created (their platform part
 * zero until the platform reports). Rows are written in (item, location) order, the lock order of
 * every level writer. The upsert goes into the statement that records the movements (one round trip
 * for the ledger's writes); the item events for the crossings are emitted after it, in the same
 * transaction.
 */
export function levelsAdded(
  storeId: number,
  deltas: readonly LevelDelta[],
  now: Date,
  lockedId?: (inventoryItemId: number, locationId: number) => number | undefined,
): LevelsAdded {
  const byKey = sumByLevel(deltas);
  // Every movement recorded is unacknowledged: it counts at its level (levels.ts reads the count).
  const counts = countByLevel(deltas);
  const list = [...byKey.values()].sort(
    (x, y) => x.inventoryItemId - y.inventoryItemId || x.locationId - y.locationId,
  );
  const locked = lockedId !== undefined;
  const upsert = lockedId
    ? lockedLevelsUpdate(list, counts, now, lockedId)
    : levelsUpsert(storeId, list, counts, now);
  const itemIds = [...new Set(list.map((d) => d.inventoryItemId))];
  return {
    upsert,
    // The store's alert rules for these items are read whether or not a level crossed anything: in
    // the same statement they cost no round trip.
    // The levels go back only to a store with a rule (none: no event to compare them for), so the
    // backend builds and the driver parses no JSON of 200 levels for an apply in a store without.
    columns: (cte) => sql`case when exists (select 1 from alert_settings where store_id = ${storeId}
          and low_stock_threshold is not null) or exists (select 1 from alert_item_rules where store_id = ${storeId})
        then (select json_agg(json_build_array(inventory_item_id, location_id, available,
          on_hand, incoming, inserted)) from ${sql.table(cte)}) end as levels,
      ${alertRulesColumns(storeId, itemIds)}`,
    written: (cte) => (locked ? sql`(select count(*)::int from ${sql.table(cte)}) as levels_written` : null),
    async emitCrossings(ctx, trx, row) {
      if (locked && row.levels_written !== list.length)
        throw new Error(`the ledger updated ${row.levels_written} of ${list.length} locked levels`);
      // A store with neither a threshold nor an item rule raises no item event: nothing to compare.
      const rules = alertRulesOf(row);
      if (rules.lowStockThreshold === null && !rules.anyItemRule) return;
      const changes: LevelChange[] = [];
      for (const [item, location, available, on_hand, incoming, inserted] of row.levels ?? []) {
        if (inserted) continue;
        const d = byKey.get(keyOf(Number(item), Number(location)));
        if (!d) continue;
        changes.push({
          key: { inventoryItemId: Number(item), locationId: Number(location) },
          before: {
            available: available - d.available,
            on_hand: on_hand - d.onHand,
            incoming: incoming - d.incoming,
          },
          after: { available, on_hand, incoming },
        });
      }
      if (changes.length > 0) await emitCrossings(ctx, trx, storeId, changes, rules);
    },
  };
}

/**
 * The levels' upsert: missing rows created, the others' visible quantities moved.
 * `xmax = 0` only on a row this statement inserted (an updated row carries the upsert's lock).
 */
function levelsUpsert(
  storeId: number,
  list: readonly LevelDelta[],
  counts: ReadonlyMap<string, number>,
  now: Date,
): RawBuilder<unknown> {
  return insertRows(
    "inventory_levels as l",
    list,
    [
      ["store_id", "int", () => storeId],
      ["inventory_item_id", "bigint", (d) => d.inventoryItemId],
      ["location_id", "bigint", (d) => d.locationId],
      ["available", "int", (d) => d.available],
      ["on_hand", "int", (d) => d.onHand],
      ["incoming", "int", (d) => d.incoming],
      ["unacknowledged", "int", (d) => counts.get(keyOf(d.inventoryItemId, d.locationId)) ?? 0],
      ["created_at", "timestamptz", () => now],
      ["updated_at", "timestamptz", () => now],
    ],
    // A level whose deltas sum to nothing (a cost alone, or +n and -n) still counts its movements;
    // its visible quantities and its place in the "updated since" order stay.
    sql`on conflict (store_id, inventory_item_id, location_id) do update set
      available = l.available + excluded.available, on_hand = l.on_hand + excluded.on_hand,
      incoming = l.incoming + excluded.incoming, unacknowledged = l.unacknowledged + excluded.unacknowledged,
      updated_at = case when (excluded.available, excluded.on_hand, excluded.incoming) is distinct from (0, 0, 0)
        then excluded.updated_at else l.updated_at end
      returning inventory_item_id, location_id, available, on_hand, incoming, (xmax = 0) as inserted`,
  );
}

/**
 * The same change of levels the caller's transaction has locked already, each by the id it locked
 * (an apply locks its lines' levels as it reads them and creates the missing ones first): a plain
 * update of those rows by their primary key. The upsert's path for such a row is an insert tried
 * first: the row's identity drawn from its sequence, the key probed for the conflict, the row locked
 * again, then updated. No row is inserted here, so `inserted` is false, as the upsert's `xmax = 0`
 * is for a row locked before it (the lock is carried to the new version). The rows are found by id
 * (`l.id = any`, as an apply's lines are): joined on (store, item, location), the embedded database
 * planned the 200 values it was given as a hash of every level of the store, read in full.
 * The lock order does not matter: every row is held already.
 */
function lockedLevelsUpdate(
  list: readonly LevelDelta[],
  counts: ReadonlyMap<string, number>,
  now: Date,
  lockedId: (inventoryItemId: number, locationId: number) => number | undefined,
): RawBuilder<unknown> {
  const ids = list.map((d) => {
    const id = lockedId(d.inventoryItemId, d.locationId);
    if (id === undefined)
      throw new Error(
        `level (${d.inventoryItemId}, ${d.locationId}) is not among the caller's locked levels`,
      );
    return id;
  });
  const idArray = arrayParam("bigint", ids);
  const column = (value: (d: LevelDelta) => number) => arrayParam("int", list.map(value));
  return sql`update inventory_levels as l set
      available = l.available + d.available, on_hand = l.on_hand + d.on_hand,
      incoming = l.incoming + d.incoming, unacknowledged = l.unacknowledged + d.unacknowledged,
      updated_at = case when (d.available, d.on_hand, d.incoming) is distinct from (0, 0, 0)
        then ${now}::timestamptz else l.updated_at end
    from unnest(${idArray}, ${column((d) => d.available)}, ${column((d) => d.onHand)},
      ${column((d) => d.incoming)}, ${column((d) => counts.get(keyOf(d.inventoryItemId, d.locationId)) ?? 0)})
      as d(id, available, on_hand, incoming, unacknowledged)
    where l.id = d.id and l.id = any(${idArray})
    returning l.inventory_item_id, l.location_id, l.available, l.on_hand, l.incoming, false as inserted`;
}
