import type { FastifyBaseLogger } from "fastify";
import type { AppContext } from "../context.ts";
import { type ClaimedJob, DEFAULT_LEASE_MS, JobQueue } from "./queue.ts";

/** A failure that retrying cannot fix (e.g. the platform refused the push): fail the job now. */
export class PermanentJobError extends Error {}

export interface JobHandler {
  type: string;
  run(ctx: AppContext, job: ClaimedJob): Promise<void>;
  /** Delay before attempt `attempts + 1`, or null to give up. Default: exponential with jitter. */
  retryDelayMs?(attempts: number, job: ClaimedJob): number | null;
  /** Called once when the job fails for good (permanent error or attempts exhausted). */
  onFinalFailure?(ctx: AppContext, job: ClaimedJob, error: string): Promise<void>;
  /**
   * At most this share of the worker's slots (at least one) runs jobs of this type at once, so a type
   * whose jobs can be slow (deliveries to a hanging endpoint) never holds every slot.
   */
  maxShare?: number;
  /**
   * Jobs of this type are shared fairly across stores: one store's jobs of such types hold at most the
   * worker's slots less a reserve (a quarter, at least one), so when that store's work hangs (webhook
   * endpoints that never answer) another store's jobs still find a free slot at once.
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
  logger?: FastifyBaseLogger;
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
      if (free > 0 && this.mayHaveWork) {
        this.mayHaveWork = false;
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
      if (claimed.length === 0 || this.inFlight >= this.options.concurrency) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            this.mayHaveWork = true;
            resolve();
          }, pollMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
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
   * Fair types skip the stores already holding `storeCap` of them, and a claim asks for no more than
   * the least room a store has left, so one claim cannot take a store past its cap (the next claim,
   * at once since this one was full, skips that store).
   */
  private async claimWithin(free: number): Promise<{ jobs: ClaimedJob[]; full: boolean }> {
    const { jobs, db } = this.ctx;
    const claimed: ClaimedJob[] = [];
    const open: string[] = [];
    const fairTypes = [...this.handlers.values()].filter((h) => h.fairAcrossStores).map((h) => h.type);
    const held = new Map(this.inFlightByStore);
    let full = false;
    const claim = async (limit: number, types: string[]) => {
      const fair = types.some((type) => fairTypes.includes(type));
      const rooms = [...held.values()].map((n) => this.storeCap - n);
      const ask = fair ? Math.min(limit, this.storeCap, ...rooms.filter((r) => r > 0)) : limit;
      const skip = fair
        ? { types: fairTypes, stores: [...held].filter(([, n]) => n >= this.storeCap).map(([id]) => id) }
        : undefined;
      const got = await jobs.claim(db, this.id, ask, types, this.leaseMs, skip);
      if (got.length === ask) full = true;
      for (const job of got) {
        const store = this.fairStoreOf(job);
        if (store !== null) held.set(store, (held.get(store) ?? 0) + 1);
      }
      claimed.push(...got);
    };
    for (const [type, handler] of this.handlers) {
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
      await claim(room, [type]);
    }
    const left = free - claimed.length;
    if (left > 0 && open.length > 0) await claim(left, open);
    return { jobs: claimed, full };
  }

  /** Slots one store's jobs of fair types may hold: all but a quarter (at least one) of the worker's. */
  private get storeCap(): number {
    const { concurrency } = this.options;
    return Math.max(1, concurrency - Math.max(1, Math.floor(concurrency / 4)));
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
      const permanent = error instanceof PermanentJobError;
      const delay =
        permanent || job.attempts >= job.max_attempts
          ? null
          : (handler.retryDelayMs ?? defaultRetryDelay)(job.attempts, job);
      const retryAt = delay === null ? null : new Date(clock.now().getTime() + delay);
      try {
        await jobs.fail(db, job, this.id, message.slice(0, 2000), retryAt);
        if (retryAt === null && handler.onFinalFailure) await handler.onFinalFailure(this.ctx, job, message);
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
}
