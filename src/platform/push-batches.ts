import type { AppContext } from "../context.ts";
import type { Db } from "../db/database.ts";
import { type BatchedMovement, PUSH_JOB, unpushedWithBatch } from "../domain/stock/index.ts";
import { type PushPayload, parsePushPayload } from "./job-payloads.ts";

/**
 * Push batches: several records' movements of one store sent to the platform as one document
 * (docs/decisions.md, "Push batches"). When 32 receipts a second each queue a push, one push per
 * receipt costs the platform one call and the database a claim, a platform transaction and an
 * acknowledgement each, and the pushes fall behind; a push that finds more pushes of its store
 * waiting takes their movements along, so a batch grows with the backlog.
 *
 * A movement's batch is fixed before the batch is sent (`push_batch_movements`, committed waiting for
 * the disk), and any later attempt, by whichever record's job, sends exactly the unacknowledged
 * movements of that batch under the batch's key: every movement goes under one key only, and the
 * platform moves it once.
 *
 * The waiting jobs taken along are leased under the taking job's mark (`batch-of-<job id>`): each is
 * completed in the transaction that acknowledges the last of the movements it had waiting, and handed
 * back to the queue, due at once, when the push ends without that (a failure, or movements of its in
 * another batch). A worker that dies leaves them leased; they run when the lease runs out and send the
 * same batch. A worker that only stalled past those leases (or its own) finds, when it resumes, that
 * the batch leaves out the jobs another worker claimed meanwhile, or that nothing is put in a batch
 * at all (assignBatches is fenced on the leases: docs/decisions.md, "Push batches", two holders).
 */

/** Waiting push jobs one push takes along at most. */
export const MAX_BATCHED_JOBS = 32;

/** The mark a job's worker leases the jobs it took along under. */
export function batchMark(jobId: number): string {
  return `batch-of-${jobId}`;
}

/**
 * The platform key of a batch's document, with its movement count: batch ids come from a sequence
 * and are never reused, and a batch is acknowledged whole, so every attempt counts the same.
 */
export function batchIdempotencyKey(storeId: number, batchId: number, movements: number): string {
  return `stockroom-${storeId}-batch-${batchId}-${movements}`;
}

/** The jobs a push took along, and what each still waits for: done when nothing is left. */
export class TakenPushes {
  private readonly waiting = new Map<number, Set<number>>();

  /**
   * `pool`: their movements the push may put in its batch. `jobs`: each job's unacknowledged
   * movements, the batched elsewhere among them (it waits for those too: it is handed back for them;
   * so is a job with none, or one whose payload does not parse).
   */
  /** Each movement of the pool's job (the batch is fenced on it: assignBatches). */
  readonly jobOf = new Map<number, number>();

  constructor(
    readonly mark: string,
    readonly pool: BatchedMovement[],
    jobs: ReadonlyArray<{ id: number; unpushed: readonly number[] }>,
  ) {
    // A job with nothing left to send still has its record to settle: its own run does that.
    for (const job of jobs) {
      this.waiting.set(job.id, new Set(job.unpushed.length > 0 ? job.unpushed : [-1]));
      for (const id of job.unpushed) this.jobOf.set(id, job.id);
    }
  }

  /** The jobs not finished here that wait for some of `ids`. */
  waitingFor(ids: readonly number[]): number[] {
    return [...this.waiting].filter(([, left]) => ids.some((id) => left.has(id))).map(([job]) => job);
  }

  /**
   * Notes movements acknowledged; answers the jobs that wait for nothing more (forgotten here: the
   * caller completes them in the acknowledging transaction).
   */
  acknowledged(ids: readonly number[]): number[] {
    const done: number[] = [];
    for (const [job, left] of this.waiting) {
      for (const id of ids) left.delete(id);
      if (left.size === 0) done.push(job);
    }
    for (const job of done) this.waiting.delete(job);
    return done;
  }

  /** Jobs not finished here. */
  left(): number[] {
    return [...this.waiting.keys()];
  }
}

/**
 * Leases the store's push jobs that wait (due, never attempted) and reads their unacknowledged
 * movements: those in no batch yet (of jobs queued since documents carry several movements) are the
 * pool a batch is made of.
 */
export async function takeWaitingPushes(
  ctx: AppContext,
  db: Db,
  storeId: number,
  jobId: number,
): Promise<TakenPushes> {
  const mark = batchMark(jobId);
  const leased = await ctx.jobs.leaseWaiting(db, PUSH_JOB, storeId, {
    exceptId: jobId,
    mark,
    limit: MAX_BATCHED_JOBS,
  });
  const jobs = leased.map((j) => ({ id: j.id, payload: payloadOrNull(j.payload) }));
  const movements = await unpushedWithBatch(
    db,
    storeId,
    jobs.flatMap((j) => j.payload?.movement_ids ?? []),
  );
  const byId = new Map(movements.map((m) => [m.id, m]));
  const pool = jobs.flatMap((j) =>
    j.payload?.grouped
      ? j.payload.movement_ids.flatMap((id) => {
          const m = byId.get(id);
          return m && m.push_batch_id === null ? [m] : [];
        })
      : [],
  );
  return new TakenPushes(
    mark,
    pool,
    jobs.map((j) => ({ id: j.id, unpushed: j.payload?.movement_ids.filter((id) => byId.has(id)) ?? [] })),
  );
}

function payloadOrNull(payload: Record<string, unknown>): PushPayload | null {
  try {
    return parsePushPayload(payload);
  } catch {
    return null;
  }
}
