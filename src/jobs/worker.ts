import type { BaseLogger } from "pino";
import type { AppContext } from "../context.ts";
import type { Db } from "../db/database.ts";
import { type ClaimedJob, DEFAULT_LEASE_MS, JobQueue } from "./queue.ts";

/** A failure that retrying cannot fix (e.g. the platform refused the push): fail the job now. */
export class PermanentJobError extends Error {}

/**
 * Not a failed attempt: the job cannot run before something else happens (a store's platform is
 * disconnected). It waits until `retryAt` (or until woken, JobQueue.wakeWaiting) without spending an
 * attempt, so it never fails for having waited.
 */
export class DeferJobError extends Error {
  constructor(
    message: string,
    readonly retryAt: Date,
  ) {
    super(message);
  }
}

export interface JobHandler {
  type: string;
  run(ctx: AppContext, job: ClaimedJob): Promise<void>;
  /** Delay before attempt `attempts + 1`, or null to give up. Default: exponential with jitter. */
  retryDelayMs?(attempts: number, job: ClaimedJob): number | null;
  /**
   * Called once when the job fails for good (permanent error or attempts exhausted), in the
   * transaction that marks it failed (`trx`: use it, not ctx.db), so the two commit together.
   */
  onFinalFailure?(ctx: AppContext, job: ClaimedJob, error: string, trx: Db): Promise<void>;
  /**
   * Called when a failed attempt goes back to the queue (a retry after its delay, or a DeferJobError's
   * wait), in the transaction that reschedules it (`trx`), so "the job waits for its next attempt"
   * and what the hook writes commit together or not at all.
   */
  onRetry?(ctx: AppContext, job: ClaimedJob, trx: Db): Promise<void>;
  /**
   * At most this share of the worker's slots (at least one) runs jobs of this type at once, so a type
   * whose jobs can be slow (deliveries to a hanging endpoint) never holds every slot.
   */
  maxShare?: number;
  /**
   * Jobs of this type are shared fairly across stores: when every slot is taken, a store with none of
   * them running still gets one of the worker's reserve slots (a quarter more, at least one, beyond any
   * `maxShare`), so when one store's work hangs (webhook endpoints that never answer) another store's
   * jobs start at once.
   */
  fairAcrossStores?: boolean;
}

export interface PeriodicTask {
  name: string;
  intervalMs: number;
  run(ctx: AppContext): Promise<void>;
}

/** Exponential backoff from 1 s, capped at 10 min, with ±20 % jitter so retries never stampede. */
export function defaultRetryDelay(attempts: number): number {
  const base = Math.min(600_000, 1000 * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

export interface WorkerOptions {
  concurrency: number;
  pollIntervalMs?: number;
  leaseMs?: number;
  /** Where failures are warned about: the API's pino logger, or the worker process's. */
  logger?: Pick<BaseLogger, "warn">;
}

/**
 * Runs jobs from the queue. Several workers (in-process or `npm run worker`) can share one database.
 * Tests call `drain()` to run everything due, deterministically, under the injected clock.
 */
export class Worker {
  readonly id = JobQueue.newWorkerId();
  private readonly handlers = new Map<string, JobHandler>();
  private readonly periodic: PeriodicTask[] = [];
  private readonly periodicTimers: NodeJS.Timeout[] = [];
  private running = false;
  private inFlight = 0;
  private readonly inFlightByType = new Map<string, number>();
  /** Jobs of `fairAcrossStores` types running per store. */
  private readonly inFlightByStore = new Map<number, number>();
  /** Until when (performance.now) a reserve claim is not worth asking again: the last found nothing. */
  private reserveIdleUntil = 0;
  private wake: (() => void) | null = null;
  /**
   * Whether a claim could find anything: set by an enqueue in this process, by the poll tick, and by a
   * claim that filled its limit. A finished job alone wakes the loop without it, so an idle queue is
   * not asked again after every job (on the embedded database each empty claim costs the one core).
   */
  private mayHaveWork = true;
  private loopDone: Promise<void> | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly options: WorkerOptions,
  ) {}

  register(handler: JobHandler): this {
    this.handlers.set(handler.type, handler);
    return this;
  }

  every(task: PeriodicTask): this {
    this.periodic.push(task);
    return this;
  }

  get handledTypes(): string[] {
    return [...this.handlers.keys()];
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.ctx.jobs.onEnqueue(() => {
      this.mayHaveWork = true;
      this.wake?.();
    });
    this.loopDone = this.loop();
    for (const task of this.periodic) {
      const timer = setInterval(() => {
        task
          .run(this.ctx)
          .catch((error) =>
            this.options.logger?.warn({ err: error, task: task.name }, "periodic task failed"),
          );
      }, task.intervalMs);
      timer.unref();
      this.periodicTimers.push(timer);
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const timer of this.periodicTimers) clearInterval(timer);
    this.periodicTimers.length = 0;
    this.unsubscribe?.();
    this.wake?.();
    await this.loopDone;
    // In-flight jobs finish (the loop waits for them); anything still leased is handed back.
    await this.ctx.jobs.releaseLeases(this.ctx.db, this.id).catch(() => {});
  }

  /** Runs one periodic task now (tests and the CLI). */
  async runPeriodic(name: string): Promise<void> {
    const task = this.periodic.find((t) => t.name === name);
    if (!task) throw new Error(`no periodic task ${name}`);
    await task.run(this.ctx);
  }

  /** Runs every due job until none is left (bounded). Returns how many ran. */
  async drain(maxJobs = 10_000): Promise<number> {
    let ran = 0;
    while (ran < maxJobs) {
      const jobs = await this.ctx.jobs.claim(
        this.ctx.db,
        this.id,
        this.options.concurrency,
        this.handledTypes,
        this.leaseMs,
      );
      if (jobs.length === 0) break;
      await Promise.all(jobs.map((job) => this.execute(job)));
      ran += jobs.length;
    }
    return ran;
  }

  private get leaseMs(): number {
    return this.options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  private async loop(): Promise<void> {
    const pollMs = this.options.pollIntervalMs ?? 250;
    const active = new Set<Promise<void>>();
    while (this.running) {
      const free = this.options.concurrency - this.inFlight;
      let claimed: ClaimedJob[] = [];
      if (free + this.reserve > 0 && this.mayHaveWork) {
        // With no regular slot free only the reserve is looked at: whatever the regular slots may find
        // is still there, and the next finished job must claim it without waiting for the poll.
        if (free > 0) this.mayHaveWork = false;
        try {
          const result = await this.claimWithin(free);
          claimed = result.jobs;
          if (result.full) this.mayHaveWork = true;
        } catch (error) {
          this.mayHaveWork = true;
          this.options.logger?.warn({ err: error }, "job claim failed; retrying");
        }
      }
      for (const job of claimed) {
        this.inFlight++;
        this.inFlightByType.set(job.type, (this.inFlightByType.get(job.type) ?? 0) + 1);
        const store = this.fairStoreOf(job);
        if (store !== null) this.inFlightByStore.set(store, (this.inFlightByStore.get(store) ?? 0) + 1);
        const p = this.execute(job).finally(() => {
          this.inFlight--;
          this.inFlightByType.set(job.type, (this.inFlightByType.get(job.type) ?? 1) - 1);
          if (store !== null) {
            const left = (this.inFlightByStore.get(store) ?? 1) - 1;
            if (left > 0) this.inFlightByStore.set(store, left);
            else this.inFlightByStore.delete(store);
          }
          active.delete(p);
          this.wake?.();
        });
        active.add(p);
      }
      if (claimed.length === 0 || this.inFlight >= this.options.concurrency + this.reserve) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            this.mayHaveWork = true;
            resolve();
          }, pollMs);
          // Made in a const, then stored: a function literal written straight into a property is
          // allocated in the old generation, and one a poll (with its context and the loop's) would
          // wait there for a full collection (scripts/check-v8-patterns.mjs).
          const wake = () => {
            clearTimeout(timer);
            resolve();
          };
          this.wake = wake;
        });
        this.wake = null;
      }
    }
    await Promise.allSettled([...active]);
  }

  /**
   * Claims up to `free` due jobs: first the types with a share (each within the room its share leaves),
   * then the other types for the remaining slots. `full` when some claim got as many as it asked for,
   * so more may be waiting.
   *
   * When that leaves no slot free, a reserve slot may go to a job of a fair type (claimReserve).
   */
  private async claimWithin(free: number): Promise<{ jobs: ClaimedJob[]; full: boolean }> {
    const { jobs, db } = this.ctx;
    const claimed: ClaimedJob[] = [];
    const open: string[] = [];
    let full = false;
    for (const [type, handler] of this.handlers) {
      if (free <= 0) break;
      if (handler.maxShare === undefined) {
        open.push(type);
        continue;
      }
      const cap = Math.max(1, Math.floor(this.options.concurrency * handler.maxShare));
      const room = Math.min(cap - (this.inFlightByType.get(type) ?? 0), free - claimed.length);
      if (room <= 0) {
        // At its share: the type's next jobs wait for one of its slots, then need a claim.
        full = true;
        continue;
      }
      const got = await jobs.claim(db, this.id, room, [type], this.leaseMs);
      if (got.length === room) full = true;
      claimed.push(...got);
    }
    const left = free - claimed.length;
    if (left > 0 && open.length > 0) {
      const got = await jobs.claim(db, this.id, left, open, this.leaseMs);
      if (got.length === left) full = true;
      claimed.push(...got);
    }
    if (free - claimed.length <= 0) {
      const got = await this.claimReserve(claimed);
      if (got) {
        full = true;
        claimed.push(got);
      }
    }
    return { jobs: claimed, full };
  }

  /**
   * Every slot is taken: one job of a fair type for a reserve slot, from a store with none of them
   * running here (counting `claimed`). A claim that finds none is not repeated within a poll interval,
   * so a saturated worker asks at most that often (each empty claim costs the embedded database).
   */
  private async claimReserve(claimed: readonly ClaimedJob[]): Promise<ClaimedJob | null> {
    const fairTypes = [...this.handlers.values()].filter((h) => h.fairAcrossStores).map((h) => h.type);
    if (fairTypes.length === 0) return null;
    if (this.inFlight + claimed.length >= this.options.concurrency + this.reserve) return null;
    if (performance.now() < this.reserveIdleUntil) return null;
    const running = new Set(this.inFlightByStore.keys());
    for (const job of claimed) {
      const store = this.fairStoreOf(job);
      if (store !== null) running.add(store);
    }
    const [got] = await this.ctx.jobs.claim(this.ctx.db, this.id, 1, fairTypes, this.leaseMs, {
      types: fairTypes,
      stores: [...running],
    });
    if (!got) this.reserveIdleUntil = performance.now() + (this.options.pollIntervalMs ?? 250);
    return got ?? null;
  }

  /** Slots beyond `concurrency` for the reserve: a quarter more (at least one) when fair types exist. */
  private get reserve(): number {
    const anyFair = [...this.handlers.values()].some((h) => h.fairAcrossStores);
    return anyFair ? Math.max(1, Math.floor(this.options.concurrency / 4)) : 0;
  }

  /** The store a job counts against, when its type is shared fairly across stores. */
  private fairStoreOf(job: ClaimedJob): number | null {
    return job.store_id !== null && this.handlers.get(job.type)?.fairAcrossStores ? job.store_id : null;
  }

  private async execute(job: ClaimedJob): Promise<void> {
    const handler = this.handlers.get(job.type);
    const { db, jobs, clock } = this.ctx;
    if (!handler) {
      await jobs.fail(db, job, this.id, `no handler for ${job.type}`, null);
      return;
    }
    // Keep the lease while a long job runs, so nobody else picks it up.
    const heartbeat = setInterval(
      () => {
        const until = new Date(clock.now().getTime() + this.leaseMs);
        db.updateTable("jobs")
          .set({ locked_until: until })
          .where("id", "=", job.id)
          .where("locked_by", "=", this.id)
          .where("attempts", "=", job.attempts)
          .execute()
          .catch(() => {});
      },
      Math.max(1000, this.leaseMs / 3),
    );
    heartbeat.unref();
    try {
      await handler.run(this.ctx, job);
      await jobs.complete(db, job, this.id);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const reason = message.slice(0, 2000);
      if (error instanceof DeferJobError) {
        await this.reschedule(
          job,
          (trx) => jobs.defer(trx, job, this.id, reason, error.retryAt),
          handler.onRetry && ((trx) => handler.onRetry!(this.ctx, job, trx)),
        ).catch((deferError) => {
          this.options.logger?.warn(
            { err: deferError, job: job.id },
            "could not defer job; the lease will expire",
          );
        });
        return;
      }
      const permanent = error instanceof PermanentJobError;
      const delay =
        permanent || job.attempts >= job.max_attempts
          ? null
          : (handler.retryDelayMs ?? defaultRetryDelay)(job.attempts, job);
      const retryAt = delay === null ? null : new Date(clock.now().getTime() + delay);
      const hook =
        retryAt === null
          ? handler.onFinalFailure && ((trx: Db) => handler.onFinalFailure!(this.ctx, job, message, trx))
          : handler.onRetry && ((trx: Db) => handler.onRetry!(this.ctx, job, trx));
      try {
        await this.reschedule(job, (trx) => jobs.fail(trx, job, this.id, reason, retryAt), hook);
      } catch (failError) {
        this.options.logger?.warn(
          { err: failError, job: job.id },
          "could not record job failure; the lease will expire",
        );
      }
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * Records a failed attempt (`record`: failed for good, queued for a retry, or deferred) and runs the
   * handler's hook for it in the same transaction; the hook runs only while the job is still this
   * worker's (a worker whose lease was taken over leaves the job, and its hooks, to the new holder).
   * A hook that throws takes the record back with it: the attempt is then recorded alone, as without
   * a hook (a hook that always fails must not leave its job running forever).
   */
  private async reschedule(
    job: ClaimedJob,
    record: (trx: Db) => Promise<boolean>,
    hook: ((trx: Db) => Promise<void>) | undefined,
  ): Promise<void> {
    const { db } = this.ctx;
    if (!hook) {
      await record(db);
      return;
    }
    let recorded = false;
    try {
      await db.transaction().execute(async (trx) => {
        if (!(await record(trx))) return;
        recorded = true;
        await hook(trx);
      });
    } catch (error) {
      if (!recorded) throw error;
      this.options.logger?.warn(
        { err: error, job: job.id },
        "job failure hook failed; recording the attempt alone",
      );
      await record(db);
    }
  }
}
