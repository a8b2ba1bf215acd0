import { randomUUID } from "node:crypto";
import { type RawBuilder, sql } from "kysely";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { WITHOUT_WAITING_FOR_DISK } from "../db/transaction.ts";

export interface EnqueueOptions {
  storeId?: number | null;
  /** When the job may first run (default now). */
  runAt?: Date;
  maxAttempts?: number;
  /**
   * At most one queued job per dedupe key: a second enqueue while the first still waits is dropped
   * (or, with `onDuplicate: "replace"`, replaces the waiting job's payload and run time).
   */
  dedupeKey?: string;
  onDuplicate?: "ignore" | "replace";
}

export interface ClaimedJob {
  id: number;
  store_id: number | null;
  type: string;
  payload: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
  dedupe_key: string | null;
  /** Who holds the lease (the claiming worker's id): with `attempts`, this run's fencing token. */
  locked_by: string;
}

/**
 * One run's hold on a job: the worker that claimed it and the attempt the claim made. A claim adds an
 * attempt and a defer or a release takes back only its own, so while a run is alive no later claim
 * has its attempt (only an admin's retry of a failed job starts again from 0): a statement that finds
 * the job running with both is made by the run that holds it now.
 */
export interface JobLease {
  jobId: number;
  holder: string;
  attempts: number;
}

/**
 * The rows of `lease`'s job, when that run still holds it, and of the `taken` jobs still leased under
 * `taken.mark` (leaseWaiting), locked for the statement's transaction: a statement that decides what is
 * sent for a job's movements joins it, so it decides nothing once another worker claimed the job (its
 * lease ran out), and a claim skips the row until it commits. On PostgreSQL a row changed since the
 * statement's snapshot is locked and read again at its latest version (a claim that committed
 * meanwhile is seen), before the statement writes anything that depends on it.
 */
export function heldJobs(
  lease: JobLease,
  taken: { mark: string; ids: readonly number[] } | null = null,
): RawBuilder<{ id: number }> {
  const ids = [lease.jobId, ...(taken?.ids ?? [])];
  const byMark =
    taken && taken.ids.length > 0 ? sql`or (id <> ${lease.jobId} and locked_by = ${taken.mark})` : sql``;
  return sql<{ id: number }>`select id from jobs
    where id = any(${ids}::bigint[]) and state = 'running'
      and ((id = ${lease.jobId} and locked_by = ${lease.holder} and attempts = ${lease.attempts}) ${byMark})
    for update`;
}

/**
 * An update for a statement's WITH: marks done the store's failed jobs of `type` about the records the
 * relation `subjects` names (columns subject_type, subject_id; payload `subject_type`, `subject_id`),
 * whose work got done another way (a push batch another record's job sent), so the admin's failed
 * list no longer shows them and their retry is not offered (docs/decisions.md, "Push batches").
 */
export function completeFailedAbout(
  type: string,
  storeId: number,
  subjects: string,
  now: Date,
): RawBuilder<unknown> {
  const from = sql.table(subjects);
  return sql`update jobs j set state = 'done', finished_at = ${now}, updated_at = ${now}
    from ${from} s
    where j.type = ${type} and j.state = 'failed' and j.store_id = ${storeId}
      and j.payload->>'subject_type' = s.subject_type and (j.payload->>'subject_id')::bigint = s.subject_id`;
}

/** A failed job as the admin lists it. */
export interface FailedJob {
  id: number;
  payload: Record<string, unknown>;
  attempts: number;
  last_error: string | null;
  updated_at: Date;
}

export const DEFAULT_LEASE_MS = 30_000;

/**
 * A run decided nothing because its job is no longer its own: the lease ran out (a stall past it) and
 * another worker claimed the job. The run stops; the new holder does the job.
 */
export class LeaseLostError extends Error {
  constructor(jobId: number) {
    super(`job ${jobId}: the lease was taken over by another worker`);
  }
}

/**
 * The jobs table is the queue: enqueued inside the caller's transaction (so work exists iff the change
 * committed), claimed with FOR UPDATE SKIP LOCKED under a lease, so any number of worker processes
 * can share it and a dead worker's jobs come back when its lease runs out.
 */
/** A finished job's columns: done at `now`, its lease and last error cleared. */
function doneAt(now: Date) {
  return {
    state: "done",
    finished_at: now,
    updated_at: now,
    locked_by: null,
    locked_until: null,
    last_error: null,
  } as const;
}

export class JobQueue {
  private readonly listeners = new Set<() => void>();
  constructor(private readonly clock: Clock) {}

  /** Called after an enqueue so an in-process worker can wake without waiting for its next poll. */
  onEnqueue(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(): void {
    for (const listener of this.listeners) listener();
  }

  async enqueue(
    trx: Db,
    type: string,
    payload: Record<string, unknown>,
    options: EnqueueOptions = {},
  ): Promise<void> {
    await this.enqueueMany(trx, [{ type, payload, options }]);
  }

  async enqueueMany(
    trx: Db,
    jobs: Array<{ type: string; payload: Record<string, unknown>; options?: EnqueueOptions }>,
  ): Promise<void> {
    if (jobs.length === 0) return;
    const now = this.clock.now();
    const rows = jobs.map(({ type, payload, options = {} }) => ({
      store_id: options.storeId ?? null,
      type,
      payload: JSON.stringify(payload),
      state: "queued" as const,
      attempts: 0,
      max_attempts: options.maxAttempts ?? 10,
      run_at: options.runAt ?? now,
      dedupe_key: options.dedupeKey ?? null,
      created_at: now,
      updated_at: now,
    }));
    const replace = jobs.some((j) => j.options?.onDuplicate === "replace");
    if (jobs.every((j) => !j.options?.dedupeKey)) {
      await trx.insertInto("jobs").values(rows).execute();
    } else {
      await trx
        .insertInto("jobs")
        .values(rows)
        .onConflict((oc) => {
          const target = oc.column("dedupe_key").where("state", "=", "queued");
          return replace
            ? target.doUpdateSet((eb) => ({
                payload: eb.ref("excluded.payload"),
                run_at: eb.ref("excluded.run_at"),
                updated_at: eb.ref("excluded.updated_at"),
              }))
            : target.doNothing();
        })
        .execute();
    }
    // Wake local workers once the surrounding transaction had a chance to commit.
    setImmediate(() => this.notify());
  }

  /**
   * The insert of one job (no dedupe key) whose payload is built by the statement itself, for a
   * caller that writes its rows and the job in one statement (a WITH; the payload may use the ids an
   * earlier part of it returned). Call `wakeAfterCommit` once the statement ran, as `enqueue` does.
   */
  insertInStatement(
    type: string,
    payload: RawBuilder<unknown>,
    options: Pick<EnqueueOptions, "storeId" | "maxAttempts"> = {},
  ): RawBuilder<unknown> {
    const now = this.clock.now();
    return sql`insert into jobs
        (store_id, type, payload, state, attempts, max_attempts, run_at, dedupe_key, created_at, updated_at)
      select ${options.storeId ?? null}::int, ${type}::text, ${payload}, 'queued', 0,
        ${options.maxAttempts ?? 10}::int, ${now}::timestamptz, null, ${now}::timestamptz, ${now}::timestamptz`;
  }

  /** Wakes local workers once the surrounding transaction had a chance to commit. */
  wakeAfterCommit(): void {
    setImmediate(() => this.notify());
  }

  /**
   * Claims up to `limit` due jobs (optionally of some types) for `workerId` under a lease, leaving
   * alone the jobs of `skip.types` that belong to `skip.stores` (stores that already have one running).
   */
  async claim(
    db: Db,
    workerId: string,
    limit: number,
    types?: readonly string[],
    leaseMs = DEFAULT_LEASE_MS,
    skip?: { types: readonly string[]; stores: readonly number[] },
  ): Promise<ClaimedJob[]> {
    const now = this.clock.now();
    const leaseUntil = new Date(now.getTime() + leaseMs);
    const typeFilter = types?.length ? sql`and type in (${sql.join(types)})` : sql``;
    const skipFilter =
      skip && skip.types.length > 0 && skip.stores.length > 0
        ? sql`and not (type in (${sql.join(skip.types)}) and coalesce(store_id in (${sql.join(skip.stores)}), false))`
        : sql``;
    // The due jobs are picked in a WITH, which runs once: as `where id in (select … limit …)` beside
    // the volatile set_config the subquery ran again for each row, and each run skipped the rows the
    // update had just locked and picked the next ones, so a claim of 1 took every due job.
    const result = await sql<ClaimedJob>`
      with picked as (
        select id from jobs
        where ((state = 'queued' and run_at <= ${now}) or (state = 'running' and locked_until < ${now}))
        ${typeFilter} ${skipFilter}
        order by run_at, id
        limit ${limit}
        for update skip locked
      )
      update jobs set state = 'running', attempts = attempts + 1, locked_by = ${workerId},
        locked_until = ${leaseUntil}, updated_at = ${now}
      from picked
      where jobs.id = picked.id and ${WITHOUT_WAITING_FOR_DISK}
      returning jobs.id, jobs.store_id, jobs.type, jobs.payload, jobs.attempts, jobs.max_attempts,
        jobs.dedupe_key, jobs.locked_by`.execute(db);
    return result.rows;
  }

  /**
   * Marks the job done. The claim and this commit without waiting for the disk (transaction.ts): a
   * crash of the database server that loses either only runs the job again, as a worker dying
   * before `complete` does, and every job is written to be run again. Two of a platform push's
   * five flushes (about 8 ms each here) were these.
   */
  async complete(db: Db, job: ClaimedJob, workerId: string): Promise<void> {
    const now = this.clock.now();
    await db
      .updateTable("jobs")
      .set(doneAt(now))
      .where("id", "=", job.id)
      .where("locked_by", "=", workerId)
      .where("attempts", "=", job.attempts)
      .where(WITHOUT_WAITING_FOR_DISK)
      .execute();
  }

  /**
   * Leases, under `mark` rather than a worker id, up to `limit` due jobs of the type and store that
   * were never attempted (not `exceptId`): a job takes them along (a push batch) and finishes them
   * with completeLeased (their one attempt), or hands them back with releaseLeased (the attempt taken
   * back). The lease commits without waiting for the disk: lost, the jobs are simply still queued.
   */
  async leaseWaiting(
    db: Db,
    type: string,
    storeId: number,
    options: { exceptId: number; mark: string; limit: number; leaseMs?: number },
  ): Promise<Array<{ id: number; payload: Record<string, unknown> }>> {
    const now = this.clock.now();
    const leaseUntil = new Date(now.getTime() + (options.leaseMs ?? DEFAULT_LEASE_MS));
    const result = await sql<{ id: number; payload: Record<string, unknown> }>`
      with picked as (
        select id from jobs
        where type = ${type} and store_id = ${storeId} and state = 'queued' and run_at <= ${now}
          and attempts = 0 and id <> ${options.exceptId}
        order by run_at, id
        limit ${options.limit}
        for update skip locked
      )
      update jobs set state = 'running', attempts = attempts + 1, locked_by = ${options.mark},
        locked_until = ${leaseUntil}, updated_at = ${now}
      from picked
      where jobs.id = picked.id and ${WITHOUT_WAITING_FOR_DISK}
      returning jobs.id, jobs.payload`.execute(db);
    return result.rows;
  }

  /** Marks done the jobs among `ids` still leased under `mark` (leaseWaiting), in the caller's transaction. */
  async completeLeased(trx: Db, ids: readonly number[], mark: string): Promise<void> {
    if (ids.length === 0) return;
    const now = this.clock.now();
    await trx
      .updateTable("jobs")
      .set(doneAt(now))
      .where(sql<boolean>`id = any(${[...ids]}::bigint[])`)
      .where("state", "=", "running")
      .where("locked_by", "=", mark)
      .execute();
  }

  /** Hands the jobs among `ids` still leased under `mark` back to the queue, due now, no attempt counted. */
  async releaseLeased(db: Db, ids: readonly number[], mark: string): Promise<void> {
    await this.releaseLeasedReturning(db, ids, mark, false);
  }

  /**
   * releaseLeased in the caller's transaction, which commits waiting for the disk (what it commits
   * with the release must outlive what other workers send once they see it): answers the jobs it
   * handed back, the others having been claimed by a worker since their lease ran out.
   */
  releaseLeasedIn(trx: Db, ids: readonly number[], mark: string): Promise<number[]> {
    return this.releaseLeasedReturning(trx, ids, mark, true);
  }

  private async releaseLeasedReturning(
    db: Db,
    ids: readonly number[],
    mark: string,
    waitForDisk: boolean,
  ): Promise<number[]> {
    if (ids.length === 0) return [];
    const now = this.clock.now();
    const rows = await db
      .updateTable("jobs")
      .set({
        state: "queued",
        run_at: now,
        attempts: sql<number>`greatest(attempts - 1, 0)`,
        updated_at: now,
        locked_by: null,
        locked_until: null,
      })
      .where(sql<boolean>`id = any(${[...ids]}::bigint[])`)
      .where("state", "=", "running")
      .where("locked_by", "=", mark)
      .$if(!waitForDisk, (q) => q.where(WITHOUT_WAITING_FOR_DISK))
      .returning("id")
      .execute();
    setImmediate(() => this.notify());
    return rows.map((r) => Number(r.id));
  }

  /** Puts the job back for `retryAt`, or marks it failed when there is no retry. */
  /** Answers whether the job was still this worker's (its lease not taken over). */
  async fail(
    db: Db,
    job: ClaimedJob,
    workerId: string,
    error: string,
    retryAt: Date | null,
  ): Promise<boolean> {
    const now = this.clock.now();
    const result = await db
      .updateTable("jobs")
      .set(
        retryAt
          ? {
              state: "queued",
              run_at: retryAt,
              last_error: error,
              updated_at: now,
              locked_by: null,
              locked_until: null,
            }
          : {
              state: "failed",
              finished_at: now,
              last_error: error,
              updated_at: now,
              locked_by: null,
              locked_until: null,
            },
      )
      .where("id", "=", job.id)
      .where("locked_by", "=", workerId)
      .where("attempts", "=", job.attempts)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Puts the job back for `runAt` without counting the attempt it just made (DeferJobError). Answers
   * whether the job was still this worker's.
   */
  async defer(db: Db, job: ClaimedJob, workerId: string, reason: string, runAt: Date): Promise<boolean> {
    const result = await db
      .updateTable("jobs")
      .set({
        state: "queued",
        run_at: runAt,
        attempts: sql<number>`greatest(attempts - 1, 0)`,
        last_error: reason,
        updated_at: this.clock.now(),
        locked_by: null,
        locked_until: null,
      })
      .where("id", "=", job.id)
      .where("locked_by", "=", workerId)
      .where("attempts", "=", job.attempts)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Makes the store's waiting jobs of `type` due now (e.g. deferred pushes of a reconnected store). */
  async wakeWaiting(trx: Db, type: string, storeId: number): Promise<void> {
    const now = this.clock.now();
    await trx
      .updateTable("jobs")
      .set({ run_at: now, updated_at: now })
      .where("type", "=", type)
      .where("store_id", "=", storeId)
      .where("state", "=", "queued")
      .where("run_at", ">", now)
      .execute();
    setImmediate(() => this.notify());
  }

  /** Gives back every lease a stopping worker holds, so its jobs run again at once elsewhere. */
  async releaseLeases(db: Db, workerId: string): Promise<void> {
    await db
      .updateTable("jobs")
      .set({ state: "queued", locked_by: null, locked_until: null, updated_at: this.clock.now() })
      .where("state", "=", "running")
      .where("locked_by", "=", workerId)
      .execute();
  }

  /** Re-queues a failed job now with fresh attempts (admin retry). */
  async retryFailed(db: Db, jobId: number, storeId: number): Promise<boolean> {
    const now = this.clock.now();
    const row = await db
      .updateTable("jobs")
      .set({ state: "queued", attempts: 0, run_at: now, finished_at: null, updated_at: now })
      .where("id", "=", jobId)
      .where("store_id", "=", storeId)
      .where("state", "=", "failed")
      .returning("id")
      .executeTakeFirst();
    if (row) setImmediate(() => this.notify());
    return row !== undefined;
  }

  static newWorkerId(): string {
    return `w-${process.pid}-${randomUUID().slice(0, 8)}`;
  }

  /** When the job waiting under `dedupeKey` is due, or null when none waits. */
  async queuedRunAt(db: Db, dedupeKey: string): Promise<Date | null> {
    const row = await db
      .selectFrom("jobs")
      .select("run_at")
      .where("dedupe_key", "=", dedupeKey)
      .where("state", "=", "queued")
      .executeTakeFirst();
    return row?.run_at ?? null;
  }

  /** Moves the job waiting under `dedupeKey` to `runAt` when it waits for a later time. */
  async runNoLaterThan(trx: Db, dedupeKey: string, runAt: Date): Promise<void> {
    await trx
      .updateTable("jobs")
      .set({ run_at: runAt })
      .where("dedupe_key", "=", dedupeKey)
      .where("state", "=", "queued")
      .where("run_at", ">", runAt)
      .execute();
  }

  /** The store's failed jobs of one type, newest first (the admin's failed push list). */
  failedJobs(db: Db, type: string, storeId: number, limit: number): Promise<FailedJob[]> {
    return db
      .selectFrom("jobs")
      .select(["id", "payload", "attempts", "last_error", "updated_at"])
      .where("type", "=", type)
      .where("store_id", "=", storeId)
      .where("state", "=", "failed")
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
  }

  /** One job of the store and type, locked for the caller's transaction (undefined: none such). */
  lockJob(
    trx: Db,
    type: string,
    storeId: number,
    jobId: number,
  ): Promise<{ id: number; state: string; payload: Record<string, unknown> } | undefined> {
    return trx
      .selectFrom("jobs")
      .select(["id", "state", "payload"])
      .where("id", "=", jobId)
      .where("store_id", "=", storeId)
      .where("type", "=", type)
      .forUpdate()
      .executeTakeFirst();
  }

  /** The newest failed job of the type about one record (payload `subject_type` and `subject_id`). */
  lastFailedJobAbout(
    db: Db,
    type: string,
    storeId: number,
    subject: { type: string; id: number },
  ): Promise<{ id: number; last_error: string | null } | undefined> {
    return db
      .selectFrom("jobs")
      .select(["id", "last_error"])
      .where("type", "=", type)
      .where("state", "=", "failed")
      .where("store_id", "=", storeId)
      .where(sql<boolean>`payload->>'subject_type' = ${subject.type}`)
      .where(sql<boolean>`(payload->>'subject_id')::int = ${subject.id}`)
      .orderBy("id", "desc")
      .executeTakeFirst();
  }

  /** Forgets every job of an erased store (they would only fail on a store that no longer exists). */
  async deleteStoreJobs(trx: Db, storeId: number): Promise<void> {
    await trx.deleteFrom("jobs").where("store_id", "=", storeId).execute();
  }

  /** Forgets the jobs that finished well before `cutoff` (retention). */
  async deleteDoneBefore(db: Db, cutoff: Date): Promise<void> {
    await db.deleteFrom("jobs").where("state", "=", "done").where("finished_at", "<", cutoff).execute();
  }
}
