import { sql } from "kysely";
import type { Db } from "../../db/database.ts";
import { completeFailedAbout, heldJobs, type JobLease, LeaseLostError } from "../../jobs/queue.ts";
import { PUSH_JOB, type SyncSubjectType } from "./ledger.ts";
import { type LevelKey, levelKeyOfRow } from "./level-keys.ts";
import { notAcknowledged, type UnpushedMovement } from "./pushes.ts";

/**
 * The ledger's side of push batches (platform/push-batches.ts sends them): several records'
 * movements of one store put in one platform document. A movement's batch (`push_batch_movements`,
 * migration 039) is the document it was put in, committed before the document is sent, so every
 * attempt sends the same movements under the same key; the row goes when the movement is
 * acknowledged. It carries the movement's in-flight mark too (`in_flight`), so putting a movement in
 * a batch and acknowledging it rewrite no ledger row but the acknowledgement's own.
 */

/** A movement as a batched push reads it: what a document carries, its record and its batch. */
export interface BatchedMovement extends UnpushedMovement {
  subject_type: SyncSubjectType;
  subject_id: number;
  push_batch_id: number | null;
}

const COLUMNS = sql`m.id, m.store_id, m.subject_type, m.subject_id, m.inventory_item_id, m.location_id,
  m.available_delta, m.on_hand_delta, m.incoming_delta, m.unit_cost, m.unit_cost_currency, m.reason,
  m.reference, b.batch_id as push_batch_id`;

function asMovements(rows: BatchedMovement[]): BatchedMovement[] {
  return rows.map((r) => ({
    ...r,
    push_batch_id: r.push_batch_id === null ? null : Number(r.push_batch_id),
  }));
}

/** The movements among `ids` the platform has not acknowledged, by id, with their batch. */
export async function unpushedWithBatch(
  db: Db,
  storeId: number,
  ids: readonly number[],
): Promise<BatchedMovement[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<BatchedMovement>`select ${COLUMNS} from stock_movements m
    left join push_batch_movements b on b.movement_id = m.id
    where m.store_id = ${storeId} and m.id = any(${[...ids]}::bigint[]) and ${notAcknowledged("m")}
    order by m.id`.execute(db);
  return asMovements(rows);
}

/** The unacknowledged movements of the store's batches `batchIds`, by id. */
export async function movementsOfBatches(
  db: Db,
  storeId: number,
  batchIds: readonly number[],
): Promise<BatchedMovement[]> {
  if (batchIds.length === 0) return [];
  const { rows } = await sql<BatchedMovement>`select ${COLUMNS} from push_batch_movements b
    join stock_movements m on m.id = b.movement_id
    where b.store_id = ${storeId} and b.batch_id = any(${[...batchIds]}::bigint[]) and ${notAcknowledged("m")}
    order by m.id`.execute(db);
  return asMovements(rows);
}

/**
 * Who may put movements in a batch: the run holding the push job (`lease`), for its own movements
 * and for those of the jobs it took along, while they are still leased under `mark`. `jobOf`: each
 * movement's job (absent: the leading job's).
 */
export interface BatchFence {
  lease: JobLease;
  mark: string;
  jobOf: ReadonlyMap<number, number>;
}

/**
 * Puts the movements of each document in a batch of its own, numbered from the sequence, marked in
 * flight (the batch is sent right after), in one statement that commits waiting for the disk (the
 * batch must outlive anything the platform is sent). Answers each movement put in a batch and its
 * batch; one another push put in a batch first is left out (the movement's key in
 * push_batch_movements: a concurrent push's insert is waited for, then skipped), and so is one ever
 * sent alone (`push_key_sent_at`: a record's own document that may be on the platform under its own
 * key, whether or not still marked in flight: a job that failed for good and an admin retried starts
 * again at its first attempt). Only while the `fence`'s run holds its job (else LeaseLostError, nothing
 * put), and only the movements of jobs it still holds (heldJobs): a job claimed by another worker since
 * its lease ran out may be sending its movements alone.
 */
export async function assignBatches(
  db: Db,
  storeId: number,
  documents: ReadonlyArray<readonly number[]>,
  fence: BatchFence,
): Promise<Map<number, number>> {
  const ids = documents.flat();
  const indexes = documents.flatMap((d, i) => d.map(() => i));
  const leading = fence.lease.jobId;
  const jobs = ids.map((id) => fence.jobOf.get(id) ?? leading);
  const taken = [...new Set(jobs)].filter((j) => j !== leading);
  const { rows } = await sql<{ id: number | null; push_batch_id: number | null }>`
    with lease as (${heldJobs(fence.lease, { mark: fence.mark, ids: taken })}), numbered as (
      select i - 1 as doc, nextval('push_batch_ids') as batch
      from generate_series(1, ${documents.length}::int) i
    ), assigned as (
      insert into push_batch_movements (movement_id, store_id, batch_id, in_flight, inventory_item_id, location_id)
      select m.id, m.store_id, n.batch, true, m.inventory_item_id, m.location_id
      from unnest(${ids}::bigint[], ${indexes}::int[], ${jobs}::bigint[]) d(id, doc, job)
      join numbered n on n.doc = d.doc
      join stock_movements m on m.id = d.id
      join lease l on l.id = d.job
      where exists (select 1 from lease where id = ${leading})
        and m.store_id = ${storeId} and ${notAcknowledged("m")} and m.push_key_sent_at is null
      on conflict (movement_id) do nothing
      returning movement_id as id, batch_id as push_batch_id
    )
    select id, push_batch_id from assigned
    union all select null, null from lease where id = ${leading}`.execute(db);
  if (!rows.some((r) => r.id === null)) throw new LeaseLostError(leading);
  return new Map(rows.flatMap((r) => (r.id === null ? [] : [[Number(r.id), Number(r.push_batch_id)]])));
}

/**
 * Takes the unacknowledged movements of a batch out of it, after the platform refused its document
 * having moved nothing: each record's own push sends them again, alone (and marks them in flight then).
 * Answers the levels of the movements it took out (no longer in flight: to refresh, so a report kept
 * while the batch was out is adopted).
 */
export async function dissolveBatch(db: Db, storeId: number, batchId: number): Promise<LevelKey[]> {
  const { rows } = await sql<{ inventory_item_id: number; location_id: number }>`
    delete from push_batch_movements b using stock_movements m
    where b.store_id = ${storeId} and b.batch_id = ${batchId} and m.id = b.movement_id
    returning m.inventory_item_id, m.location_id`.execute(db);
  return rows.map(levelKeyOfRow);
}

/**
 * Marks synced, in one statement, the records among `subjects` none of whose movements waits for the
 * platform or was left out by it; answers the others, which the caller settles one by one. A failed
 * push job about a record synced here is done (its movements reached the platform in this batch: its
 * job failed for good before another record's job sent the batch), not left in the failed list.
 */
export async function settleSyncedRecords(
  trx: Db,
  storeId: number,
  subjects: ReadonlyArray<{ type: SyncSubjectType; id: number }>,
  now: Date,
): Promise<Array<{ type: SyncSubjectType; id: number }>> {
  if (subjects.length === 0) return [];
  const { rows } = await sql<{ subject_type: SyncSubjectType; subject_id: number }>`
    with synced as (
      update platform_sync_states s set state = 'synced', error = null, attempted_at = ${now},
        updated_at = ${now}
      from unnest(${subjects.map((s) => s.type)}::text[], ${subjects.map((s) => s.id)}::bigint[]) d(t, i)
      where s.store_id = ${storeId} and s.subject_type = d.t and s.subject_id = d.i
        and not exists (select 1 from stock_movements m
          where m.store_id = ${storeId} and m.subject_type = d.t and m.subject_id = d.i
            and (m.pushed_at is null or m.push_skipped_at is not null))
      returning s.subject_type, s.subject_id
    ), failed_done as (${completeFailedAbout(PUSH_JOB, storeId, "synced", now)})
    select subject_type, subject_id from synced`.execute(trx);
  const done = new Set(rows.map((r) => `${r.subject_type}:${Number(r.subject_id)}`));
  return subjects.filter((s) => !done.has(`${s.type}:${s.id}`));
}
