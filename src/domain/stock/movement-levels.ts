import { sql } from "kysely";
import type { AppContext } from "../../context.ts";
import { insertRows } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";
import {
  type AlertRulesRow,
  alertRulesColumns,
  alertRulesOf,
  emitCrossings,
  type LevelChange,
} from "./level-alerts.ts";
import { keyOf, type LevelDelta, sumByLevel } from "./level-keys.ts";

/** A level row as the upsert of recorded movements returns it. */
interface AddedLevel {
  inventory_item_id: number;
  location_id: number;
  available: number;
  on_hand: number;
  incoming: number;
  /** The statement created the row (it was not there before). */
  inserted: boolean;
}

/** An AddedLevel as a JSON array (the upsert's rows come back as one JSON value beside the rules). */
type AddedLevelArray = [number, number, number, number, number, boolean];

/**
 * Adds newly recorded movements to the mirror levels they touch, in one upsert: a movement is
 * unacknowledged when it is recorded, so it adds its deltas to the visible level and leaves the
 * platform's part alone, which is exactly what a full refresh would compute, without reading the level
 * rows or summing the unacknowledged movements first. Missing rows are created (their platform part
 * zero until the platform reports). Rows are written in (item, location) order, the lock order of
 * every level writer. Emits the item events for the crossings in the same transaction.
 */
export async function addMovementsToLevels(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  deltas: readonly LevelDelta[],
): Promise<void> {
  if (deltas.length === 0) return;
  const byKey = sumByLevel(deltas);
  const list = [...byKey.values()].sort(
    (x, y) => x.inventoryItemId - y.inventoryItemId || x.locationId - y.locationId,
  );
  const now = ctx.clock.now();
  // `xmax = 0` only on a row this statement inserted (an updated row carries the upsert's lock). The
  // store's alert rules for these items come in the same statement (one round trip, not two), read
  // whether or not a level crossed anything.
  const upsert = insertRows(
    "inventory_levels as l",
    list,
    [
      ["store_id", "int", () => storeId],
      ["inventory_item_id", "bigint", (d) => d.inventoryItemId],
      ["location_id", "bigint", (d) => d.locationId],
      ["available", "int", (d) => d.available],
      ["on_hand", "int", (d) => d.onHand],
      ["incoming", "int", (d) => d.incoming],
      ["created_at", "timestamptz", () => now],
      ["updated_at", "timestamptz", () => now],
    ],
    sql<AddedLevel>`on conflict (store_id, inventory_item_id, location_id) do update set
      available = l.available + excluded.available, on_hand = l.on_hand + excluded.on_hand,
      incoming = l.incoming + excluded.incoming, updated_at = excluded.updated_at
      where (excluded.available, excluded.on_hand, excluded.incoming) is distinct from (0, 0, 0)
      returning inventory_item_id, location_id, available, on_hand, incoming, (xmax = 0) as inserted`,
  );
  const itemIds = [...new Set(list.map((d) => d.inventoryItemId))];
  const {
    rows: [result],
  } = await sql<AlertRulesRow & { levels: AddedLevelArray[] | null }>`with up as (${upsert})
    select (select json_agg(json_build_array(inventory_item_id, location_id, available, on_hand, incoming,
        inserted)) from up) as levels,
      ${alertRulesColumns(storeId, itemIds)}`.execute(trx);
  const rows: AddedLevel[] = (result.levels ?? []).map(
    ([inventory_item_id, location_id, available, on_hand, incoming, inserted]) => ({
      inventory_item_id: Number(inventory_item_id),
      location_id: Number(location_id),
      available,
      on_hand,
      incoming,
      inserted,
    }),
  );
  const changes: LevelChange[] = [];
  for (const row of rows) {
    if (row.inserted) continue;
    const d = byKey.get(keyOf(row.inventory_item_id, row.location_id));
    if (!d) continue;
    changes.push({
      key: { inventoryItemId: row.inventory_item_id, locationId: row.location_id },
      before: {
        available: row.available - d.available,
        on_hand: row.on_hand - d.onHand,
        incoming: row.incoming - d.incoming,
      },
      after: { available: row.available, on_hand: row.on_hand, incoming: row.incoming },
    });
  }
  if (changes.length > 0) await emitCrossings(ctx, trx, storeId, changes, alertRulesOf(result));
}
