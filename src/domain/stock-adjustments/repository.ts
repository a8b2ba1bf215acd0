import { type Insertable, type RawBuilder, type Selectable, sql, type Updateable } from "kysely";
import { arrayParam } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";
import { hotSql } from "../../db/prepared.ts";
import type {
  StockAdjustmentLinesTable,
  StockAdjustmentStatus,
  StockAdjustmentsTable,
} from "../../db/tables/stock_adjustments.ts";

/** SQL for stock adjustments. Every function takes the store id; no rules here. */

export type AdjustmentRow = Selectable<StockAdjustmentsTable>;
export type AdjustmentLineRow = Selectable<StockAdjustmentLinesTable>;
export type AdjustmentInsert = Insertable<StockAdjustmentsTable>;
export type AdjustmentUpdate = Updateable<StockAdjustmentsTable>;
export type AdjustmentLineInsert = Insertable<StockAdjustmentLinesTable>;

/** The numbers of these adjustments of the store (unknown ids are left out). */
export async function adjustmentNumbersOf(
  db: Db,
  storeId: number,
  ids: readonly number[],
): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("stock_adjustments")
    .select(["id", "number"])
    .where("store_id", "=", storeId)
    .where("id", "in", [...new Set(ids)])
    .execute();
  return new Map(rows.map((r) => [r.id, r.number]));
}

/** The lowest adjustment number the store has not issued, as an expression for the numbering update. */
export function firstUnusedAdjustmentNumber(storeId: number) {
  return sql<number>`coalesce((select max(sequential_id) from stock_adjustments where store_id = ${storeId}), 0) + 1`;
}

export async function findAdjustment(
  db: Db,
  storeId: number,
  id: number,
  options: { forUpdate?: boolean } = {},
): Promise<AdjustmentRow | undefined> {
  let query = db
    .selectFrom("stock_adjustments")
    .selectAll()
    .where("store_id", "=", storeId)
    .where("id", "=", id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/**
 * The adjustment locked for applying, with its location's current mirror name (null when the mirror
 * has no such location) read in the same statement, so presenting the applied adjustment reads nothing
 * more.
 */
export async function lockAdjustmentWithLocationName(
  trx: Db,
  storeId: number,
  id: number,
): Promise<(AdjustmentRow & { current_location_name: string | null }) | undefined> {
  const [row] = await lockForApply.run(trx, storeId, id);
  return row;
}

// The apply's reads are fixed texts, prepared once per PostgreSQL connection (db/prepared.ts): built
// with Kysely on every apply they cost the API a build and a compile each, and the server a parse and
// a plan each (0.1-0.2 ms apiece at load 17).
const lockForApply = hotSql<
  [storeId: number, id: number],
  AdjustmentRow & { current_location_name: string | null }
>(
  "stockroom_adjustment_lock_for_apply",
  `select sa.*, loc.name as current_location_name
   from stock_adjustments sa
   left join locations loc on loc.id = sa.location_id and loc.store_id = $1
   where sa.store_id = $1 and sa.id = $2
   for update of sa`,
  { priority: false },
);

// The lines with their levels' lock: each line's level at the adjustment's location is locked and
// read by a lateral subquery (one probe of the level's key each), the lines taken in item order so
// the locks are too (the lock order of every level writer, stock/level-locks.ts; the subquery with
// its order is not merged into the query, and the nested loop keeps it), then answered in position
// order. So the lines, whether each item was deleted and each level's `available` under its lock
// come back in one statement, where the lines and the levels' lock were two round trips in the
// apply's transaction (on the embedded database each holds its one connection while the API's thread
// takes the answer). Read after the adjustment's lock (its own statement), the lines cannot change
// meanwhile; each level is answered as locked, its newest version. A line whose item has no level
// there answers a null `level_available` (the caller creates and locks those). Joined to a CTE of the
// locked levels instead, the embedded database (no statistics for a fresh store) planned a nested
// loop over the CTE: 40,000 rows compared for 200 lines, 26 ms.
const linesForApply = hotSql<
  [storeId: number, adjustmentId: number, locationId: number],
  AdjustmentLineRow & { item_deleted: boolean; level_id: string | null; level_available: number | null }
>(
  "stockroom_adjustment_lines_for_apply",
  `select l.*, exists (
       select 1 from variants v
       where v.store_id = $1 and v.inventory_item_id = l.inventory_item_id and v.deleted_at is not null
     ) as item_deleted, k.id as level_id, k.available as level_available
   from (select * from stock_adjustment_lines where store_id = $1 and adjustment_id = $2
     order by inventory_item_id) l
   left join lateral (select id, available from inventory_levels
     where store_id = $1 and location_id = $3 and inventory_item_id = l.inventory_item_id
     for update) k on true
   order by l.position`,
  { priority: false },
);

export async function insertAdjustment(trx: Db, values: AdjustmentInsert): Promise<AdjustmentRow> {
  return trx.insertInto("stock_adjustments").values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateAdjustmentRow(
  trx: Db,
  storeId: number,
  id: number,
  set: AdjustmentUpdate,
): Promise<AdjustmentRow> {
  return trx
    .updateTable("stock_adjustments")
    .set(set)
    .where("store_id", "=", storeId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Replaces the whole line set of an adjustment (one DELETE, one multi-row INSERT). */
export async function replaceLines(
  trx: Db,
  storeId: number,
  adjustmentId: number,
  lines: AdjustmentLineInsert[],
): Promise<void> {
  await trx
    .deleteFrom("stock_adjustment_lines")
    .where("store_id", "=", storeId)
    .where("adjustment_id", "=", adjustmentId)
    .execute();
  if (lines.length > 0) await trx.insertInto("stock_adjustment_lines").values(lines).execute();
}

/** Lines of many adjustments in one query, in position order. */
export async function linesOf(
  db: Db,
  storeId: number,
  adjustmentIds: readonly number[],
): Promise<AdjustmentLineRow[]> {
  if (adjustmentIds.length === 0) return [];
  return db
    .selectFrom("stock_adjustment_lines")
    .selectAll()
    .where("store_id", "=", storeId)
    .where("adjustment_id", "in", [...new Set(adjustmentIds)])
    .orderBy("adjustment_id")
    .orderBy("position")
    .execute();
}

/**
 * The lines an apply books, in position order, each with whether its item was deleted on the platform
 * (a variant of the item marked deleted in the mirror) and its level's `available` at the location,
 * that level locked (null: no level there), read in the same statement: the apply refuses such a
 * line, and a separate lookup of the deleted items, then the levels' lock, were two more round trips
 * in its transaction.
 */
export async function linesToApply(
  trx: Db,
  storeId: number,
  adjustmentId: number,
  locationId: number,
): Promise<
  Array<
    AdjustmentLineRow & { item_deleted: boolean; level_id: string | null; level_available: number | null }
  >
> {
  return linesForApply.run(trx, storeId, adjustmentId, locationId);
}

type LineQuantities = { id: number; before: number; after: number };

/**
 * The UPDATE of many lines' quantity_before / quantity_after, from three arrays (unnest). The ids are
 * of the lines the apply has just read for its store and adjustment under the adjustment's lock, so
 * they need no store condition: with one, the embedded database's planner (no statistics there)
 * walked every line of the store through its index, then hashed them or looped over the arrays, a
 * cost that grew with every draft the store kept; `l.id = any` fetches exactly those lines by key.
 */
function lineQuantitiesUpdate(rows: readonly LineQuantities[]) {
  const ids = arrayParam(
    "bigint",
    rows.map((r) => r.id),
  );
  return sql`update stock_adjustment_lines as l
    set quantity_before = v.quantity_before, quantity_after = v.quantity_after
    from unnest(${ids}, ${arrayParam(
      "int",
      rows.map((r) => r.before),
    )},
      ${arrayParam(
        "int",
        rows.map((r) => r.after),
      )}) as v(id, quantity_before, quantity_after)
    where l.id = v.id and l.id = any(${ids})`;
}

/**
 * An apply's writes to its own rows, as parts of the statement that records its movements (the
 * ledger's, stock/ledger.ts): the lines' quantities and the adjustment's status and times.
 */
export function appliedWrites(
  storeId: number,
  id: number,
  quantities: readonly LineQuantities[],
  set: { status: StockAdjustmentStatus; applied_at: Date; updated_at: Date },
): Array<[name: string, write: RawBuilder<unknown>]> {
  const row = sql`update stock_adjustments
    set status = ${set.status}, applied_at = ${set.applied_at}, updated_at = ${set.updated_at}
    where store_id = ${storeId} and id = ${id}`;
  return quantities.length === 0
    ? [["applied", row]]
    : [
        ["applied_lines", lineQuantitiesUpdate(quantities)],
        ["applied", row],
      ];
}

export function adjustmentListQuery(
  db: Db,
  storeId: number,
  filters: { statuses?: readonly StockAdjustmentStatus[]; locationId?: number },
) {
  let query = db.selectFrom("stock_adjustments as sa").selectAll("sa").where("sa.store_id", "=", storeId);
  if (filters.statuses && filters.statuses.length > 0)
    query = query.where("sa.status", "in", [...filters.statuses]);
  if (filters.locationId !== undefined) query = query.where("sa.location_id", "=", filters.locationId);
  return query;
}
