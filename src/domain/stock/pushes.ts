import type { RawBuilder, Selectable } from "kysely";
import { sql } from "kysely";
import type { Db } from "../../db/database.ts";
import type { StockMovementsTable } from "../../db/tables/catalog.ts";
import { WITHOUT_WAITING_FOR_DISK } from "../../db/transaction.ts";
import { heldJobs, type JobLease, LeaseLostError } from "../../jobs/queue.ts";
import type { SyncSubjectType } from "./ledger.ts";
import { type LevelKey, levelKeyOfRow } from "./level-keys.ts";

/**
 * The ledger's side of a push (platform/push.ts sends the movements): which recorded movements the
 * platform has not acknowledged, and their acknowledgement.
 */

/** What a push reads of a movement: enough to cut, key and send documents. */
const UNPUSHED_COLUMNS = [
  "id",
  "store_id",
  "inventory_item_id",
  "location_id",
  "available_delta",
  "on_hand_delta",
  "incoming_delta",
  "unit_cost",
  "unit_cost_currency",
  "reason",
  "reference",
] as const;

export type UnpushedMovement = Pick<Selectable<StockMovementsTable>, (typeof UNPUSHED_COLUMNS)[number]>;

/**
 * "Not acknowledged yet" for a statement that names its movements (by id or by record), written so
 * that the planner cannot use the partial indexes on `pushed_at is null` (stock_movements_unpushed,
 * _unpushed_level) and finds the rows by key instead. Their statistics are taken when few movements
 * wait, so the planner expects about one row there and chose them for any such statement; during a
 * burst thousands wait, and every such statement walked all of the store's.
 */
export function notAcknowledged(alias?: string) {
  return alias === undefined
    ? sql<boolean>`(pushed_at is null) is true`
    : sql<boolean>`(${sql.ref(`${alias}.pushed_at`)} is null) is true`;
}

/**
 * Whether a push of the level (`item`, `location`) is in flight: a movement sent and not acknowledged,
 * by its mark alone (a batched movement's on its batch row, one sent alone on the ledger), each found
 * by a probe of a partial index of the marks in flight by level (migration 048) that stops at the
 * first, however many movements wait at the level. A batch row found is checked against its
 * movement's ledger row, so no mark is read for a movement acknowledged some other way. Each probe is
 * a scalar subquery (`limit 1`), not `exists`: the planner may turn an `exists` into a hashed subplan
 * over every mark in flight of the store (18,200 batch rows read for 200 levels in a burst, 55 ms).
 *
 * The batch rows are the probe's only table, and their ledger row is read by its key in a subquery of
 * its own, not joined: joined, the order of `movement_id` made a walk of the primary key a candidate,
 * and with `push_batch_movements` analyzed while empty (a queue table, often empty when analyzed, then
 * filled by a burst) every path on it cost the same and that walk won, filtering every batch row for
 * each level (docs/performance.md, "Pushes and batches"; push-movement-plans test). Alone, the batch
 * rows' paths are the in-flight index (store, item, location and `in_flight`), the batch index (the
 * store only) and a scan, and the in-flight index costs least even when the table is costed as empty.
 */
export function pushInFlightAt(storeId: number, item: RawBuilder<unknown>, location: RawBuilder<unknown>) {
  return sql<boolean>`((select true from push_batch_movements b
        where b.store_id = ${storeId} and b.inventory_item_id = ${item} and b.location_id = ${location}
          and b.in_flight and ${markedMovementWaits("b")} limit 1) is true
      or (select true from stock_movements m where m.store_id = ${storeId}
        and m.inventory_item_id = ${item} and m.location_id = ${location}
        and m.push_sent_at is not null and ${notAcknowledged("m")} limit 1) is true)`;
}

/**
 * Whether the movement of the batch row `alias` is still not acknowledged: its ledger row read by its
 * key in a subquery, so the batch rows stay the only table of the statement around it (see
 * pushInFlightAt). Null, so false in a `where`, for a movement no longer in the ledger.
 */
export function markedMovementWaits(alias: string) {
  return sql<boolean>`(select ${notAcknowledged("w")} from stock_movements w
          where w.id = ${sql.ref(`${alias}.movement_id`)})`;
}

/**
 * "Of the store" (and `also`) for a statement that names batch rows by movement id (`movement_id =
 * any(…)`), written as one test so that no index on the store (`push_batch_movements_batch`) or on
 * the marks in flight (`push_batch_movements_in_flight`, whose predicate `in_flight` would match)
 * serves it, and the rows are found by the primary key (or, in a plan made with the values, a scan
 * with the ids hashed). On either of those indexes the ids are a filter, and in a generic plan (PGlite
 * keeps its statements prepared and turns to one after five runs; the queue's statistics, often taken
 * while it is empty, make it look cheapest) that filter compares each row walked with each id in turn:
 * an acknowledgement of a 6,600-movement batch with 18,200 rows queued deleted its rows in 907 ms that
 * way on PostgreSQL, 15 ms by the key (docs/performance.md, "Pushes and batches").
 */
function ofStore(storeId: number, also: RawBuilder<boolean> = sql`true`) {
  return sql<boolean>`(store_id = ${storeId} and ${also}) is true`;
}

/** The movements among `ids` the platform has not acknowledged, by id. */
export function unpushedMovements(
  db: Db,
  storeId: number,
  ids: readonly number[],
): Promise<UnpushedMovement[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("stock_movements")
    .select(UNPUSHED_COLUMNS)
    .where("store_id", "=", storeId)
    .where(sql<boolean>`id = any(${[...ids]}::bigint[])`)
    .where(notAcknowledged())
    .orderBy("id")
    .execute();
}

/**
 * Marks the movements in flight before a push sends them: from now until their acknowledgement a
 * report of their levels may hold them, and is not adopted (levels.ts). A movement in a batch is
 * marked on its batch row (`push_batch_movements.in_flight`), any other on the ledger
 * (`push_sent_at`), with the lasting record that it was sent under its record's own document's key
 * (`push_key_sent_at`, set on its first send and kept when the mark comes off at a final failure):
 * such a movement never goes in a batch (assignBatches), so every later attempt sends it under that
 * key again. Commits without waiting for the disk: lost on a crash of the database server, a report
 * read while the document was out may count it twice until its acknowledgement, as before this mark
 * existed. The key's record can be lost with it only where no later attempt puts the movement in a
 * batch: the one platform that takes batches, the simulated one, applies a document in a commit of
 * this database that waits for the disk, which takes every earlier commit, this one included, to the
 * disk with it (PlatformConnector.batches; docs/decisions.md, "Push batches"). Answers the ids sent now for the
 * first time: a batched one marked here (its batch's key is fixed by the batch row), one alone whose
 * key no earlier send used. Any other was sent before and may be on the platform, whatever this
 * send's answer. It is also the decision that the movements not in a batch go in their record's own
 * documents, and is made only while the run of `lease` holds its job (heldJobs; else LeaseLostError,
 * nothing marked): a run whose lease was taken over sends nothing more, and the job's new holder,
 * which read the movements after its claim, decides instead.
 */
export async function markMovementsSent(
  db: Db,
  storeId: number,
  ids: readonly number[],
  now: Date,
  lease: JobLease,
): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  if (db.isTransaction) throw new Error("markMovementsSent must commit before the document is sent");
  const ifHeld = sql`and exists (select 1 from lease)`;
  // `unsent` reads each movement's key record as it was before this statement (locked, so read again
  // at its latest version on PostgreSQL), which the update's RETURNING could not give.
  const { rows } = await sql<{ id: number | null }>`with lease as (${heldJobs(lease)}), batched as (
      update push_batch_movements set in_flight = true
      where movement_id = any(${[...ids]}::bigint[]) and ${ofStore(storeId, sql`not in_flight`)} ${ifHeld}
      returning movement_id as id
    ), unsent as (
      select m.id, m.push_key_sent_at is null as first from stock_movements m
      where m.store_id = ${storeId} and m.id = any(${[...ids]}::bigint[]) and ${notAcknowledged("m")}
        and m.push_sent_at is null
        and not exists (select 1 from push_batch_movements b where b.movement_id = m.id) ${ifHeld}
      for update of m
    ), alone as (
      update stock_movements m set push_sent_at = ${now},
        push_key_sent_at = coalesce(m.push_key_sent_at, ${now})
      from unsent u where m.id = u.id
      returning m.id, u.first
    )
    select id from batched union all select id from alone where first
    union all select null where not ${WITHOUT_WAITING_FOR_DISK}
    union all select null from lease`.execute(db);
  if (!rows.some((r) => r.id === null)) throw new LeaseLostError(lease.jobId);
  return new Set(rows.flatMap((r) => (r.id === null ? [] : [Number(r.id)])));
}

/**
 * Takes the in-flight mark off movements no push is sending any more: the platform refused their
 * document having applied nothing, their document was never sent (an earlier one of the push
 * failed), or their job failed for good. A level with a movement marked in flight adopts no report,
 * and these may wait through a retry's backoff (up to an hour) or for an admin's retry (days). A
 * batched movement keeps its batch (a later attempt sends it under the batch's key). `keepKeys` (a job
 * failed for good: its last document may be on the platform): a movement sent alone keeps the record
 * of its key (`push_key_sent_at`), so the admin's retry sends it under that key again, never in a
 * batch; without it, the platform certainly holds nothing under that key, and the record goes too.
 * Answers the levels of the movements it took the mark off (to refresh: a report kept meanwhile may
 * now be adopted).
 */
export async function markMovementsUnsent(
  db: Db,
  storeId: number,
  ids: readonly number[],
  { keepKeys = false }: { keepKeys?: boolean } = {},
): Promise<LevelKey[]> {
  if (ids.length === 0) return [];
  // Both halves by key, the ledger's written as one test like ofStore's: stock_movements_sent_alone
  // (the store, then the level; its predicate matched) served it with the ids a filter otherwise.
  const { rows } = await sql<{ inventory_item_id: number; location_id: number }>`with batched as (
      update push_batch_movements set in_flight = false
      where movement_id = any(${[...ids]}::bigint[]) and ${ofStore(storeId, sql`in_flight`)}
      returning movement_id
    ), alone as (
      update stock_movements set push_sent_at = null${keepKeys ? sql`` : sql`, push_key_sent_at = null`}
      where id = any(${[...ids]}::bigint[])
        and (store_id = ${storeId} and push_sent_at is not null and pushed_at is null) is true
      returning inventory_item_id, location_id
    )
    select inventory_item_id, location_id from alone
    union all
    select m.inventory_item_id, m.location_id from batched b join stock_movements m on m.id = b.movement_id
    where m.store_id = ${storeId}`.execute(db);
  return rows.map(levelKeyOfRow);
}

/**
 * Marks the movements acknowledged; answers how many this call marked (0: another worker holding the
 * same job acknowledged them first). `batched`: they were sent as a batch, whose rows go now (nothing
 * sends an acknowledged movement again).
 */
export async function markMovementsPushed(
  trx: Db,
  storeId: number,
  ids: readonly number[],
  now: Date,
  batched = false,
): Promise<number> {
  const acknowledge = sql`update stock_movements set pushed_at = ${now}
    where store_id = ${storeId} and id = any(${[...ids]}::bigint[]) and ${notAcknowledged()}
    returning 1`;
  const { rows } = await sql<{ acked: string | number }>`with acked as (${acknowledge})${
    batched
      ? sql`, forgotten as (delete from push_batch_movements
          where movement_id = any(${[...ids]}::bigint[]) and ${ofStore(storeId)})`
      : sql``
  } select count(*) as acked from acked`.execute(trx);
  return Number(rows[0].acked);
}

/**
 * Marks acknowledged movements as never having reached the platform (it no longer has their item),
 * in the acknowledging transaction.
 */
export async function markMovementsSkipped(
  trx: Db,
  storeId: number,
  ids: readonly number[],
  now: Date,
): Promise<void> {
  if (ids.length === 0) return;
  await trx
    .updateTable("stock_movements")
    .set({ push_skipped_at: now })
    .where("store_id", "=", storeId)
    .where(sql<boolean>`id = any(${[...ids]}::bigint[])`)
    .where("push_skipped_at", "is", null)
    .execute();
}

/**
 * Where a record's push stands, in one statement: whether any of its movements still waits for the
 * platform's acknowledgement, and the items (at most `limit`, by id) of those that never reached it.
 */
export async function pushStandingOf(
  db: Db,
  storeId: number,
  subjectType: SyncSubjectType,
  subjectId: number,
  limit: number,
): Promise<{ unpushed: boolean; skippedItems: number[] }> {
  const of = sql`store_id = ${storeId} and subject_type = ${subjectType} and subject_id = ${subjectId}`;
  const { rows } = await sql<{ unpushed: boolean; skipped: Array<number | string> }>`select
      exists(select 1 from stock_movements where ${of} and ${notAcknowledged()}) as unpushed,
      array(select distinct inventory_item_id from stock_movements
        where ${of} and push_skipped_at is not null order by inventory_item_id limit ${limit}) as skipped`.execute(
    db,
  );
  return { unpushed: rows[0].unpushed, skippedItems: rows[0].skipped.map(Number) };
}
