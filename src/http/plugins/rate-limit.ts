import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Redis } from "ioredis";
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from "rate-limiter-flexible";
import { AppError } from "../../domain/errors.ts";

export type LimitKind = "key" | "store" | "writes";

export interface LimitOutcome {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/** A budget's window: the lengths of the contract's per-minute limits. */
const WINDOW_SECONDS = 60;

/**
 * Per-minute budgets. The budget sizes are per-store settings (a plan), so limiters are made per
 * (kind, size) on first use. In process memory by default (ProcessBudgets); in Redis when configured
 * so every API process draws on one budget, with an in-memory insurance limiter if Redis is briefly
 * unreachable.
 */
export class RateLimiter {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  /** The budgets when there is no Redis: counted on the spot (ProcessBudgets). */
  readonly inProcess: ProcessBudgets | null;

  /** The shared store of every budget, or null for process memory (the admin throttle uses it too). */
  constructor(readonly redis: Redis | null) {
    this.inProcess = redis ? null : new ProcessBudgets();
  }

  private limiterFor(kind: LimitKind, points: number): RateLimiterAbstract {
    const id = `${kind}:${points}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const options = { points, duration: WINDOW_SECONDS, keyPrefix: `rl:${kind}` };
      limiter = this.redis
        ? new RateLimiterRedis({
            ...options,
            storeClient: this.redis,
            insuranceLimiter: new RateLimiterMemory(options),
          })
        : new RateLimiterMemory(options);
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  async consume(kind: LimitKind, subject: string, points: number): Promise<LimitOutcome> {
    if (this.inProcess) return this.inProcess.take(kind, subject, points, 1);
    try {
      const res = await this.limiterFor(kind, points).consume(subject, 1);
      return {
        allowed: true,
        limit: points,
        remaining: res.remainingPoints,
        resetSeconds: Math.ceil(res.msBeforeNext / 1000),
      };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        return {
          allowed: false,
          limit: points,
          remaining: 0,
          resetSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)),
        };
      }
      throw rejection;
    }
  }

  /** Gives one point back: the request was refused by another budget, so it was never served. */
  async refund(kind: LimitKind, subject: string, points: number): Promise<void> {
    if (this.inProcess) {
      this.inProcess.take(kind, subject, points, -1);
      return;
    }
    await this.limiterFor(kind, points)
      .reward(subject, 1)
      .catch(() => {});
  }
}

interface BudgetWindow {
  used: number;
  /** Date.now() at which the window ends and the next point starts a new one. */
  endsAt: number;
}

/** Windows kept at most per budget size before the ended ones are swept. */
const SWEEP_ABOVE = 10_000;

/**
 * The budgets of one process, counted on the spot: as RateLimiterMemory counts them (a subject's
 * window runs WINDOW_SECONDS from its first point; each budget size counts apart, so a new plan starts
 * anew; a point given back with no window open opens one at −1, as the library's reward did), without
 * its promise, its result object and its key text for every point. Every API request spends two or
 * three of them, and that was about a fifth of what GET /whoami allocated on the event loop, whose
 * young generation's collections other stores' requests wait behind (issue 18 item 2).
 */
export class ProcessBudgets {
  private readonly kinds = new Map<LimitKind, Map<number, Map<string, BudgetWindow>>>();

  /** Spends `change` points (1, or −1 to give one back) of `subject`'s budget of `points` a minute. */
  take(kind: LimitKind, subject: string, points: number, change: 1 | -1): LimitOutcome {
    let sizes = this.kinds.get(kind);
    if (!sizes) {
      sizes = new Map();
      this.kinds.set(kind, sizes);
    }
    let windows = sizes.get(points);
    if (!windows) {
      windows = new Map();
      sizes.set(points, windows);
    }
    const now = Date.now();
    let window = windows.get(subject);
    if (window && window.endsAt > now) window.used += change;
    else {
      if (windows.size >= SWEEP_ABOVE) sweep(windows, now);
      window = { used: change, endsAt: now + WINDOW_SECONDS * 1000 };
      windows.set(subject, window);
    }
    const seconds = Math.ceil((window.endsAt - now) / 1000);
    return window.used <= points
      ? { allowed: true, limit: points, remaining: points - window.used, resetSeconds: seconds }
      : { allowed: false, limit: points, remaining: 0, resetSeconds: Math.max(1, seconds) };
  }
}

function sweep(windows: Map<string, BudgetWindow>, now: number): void {
  for (const [subject, window] of windows) if (window.endsAt <= now) windows.delete(subject);
}

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Applies the three budgets of the contract after authentication (a 401 never spends a key's budget). */
export function registerRateLimits(app: FastifyInstance): void {
  app.addHook("onRequest", async (request: FastifyRequest, reply: FastifyReply) => {
    const principal = request.principal;
    // The console's own calls are a person in a browser, not an integration: they spend no API budget.
    if (!principal || principal.console) return;
    const { store, key } = principal;
    const budgets: Array<[LimitKind, string, number]> = [
      ["key", String(key.id), store.rate_per_key_per_minute],
      ["store", String(store.id), store.rate_per_store_per_minute],
    ];
    if (WRITE_METHODS.has(request.method)) {
      budgets.push(["writes", String(store.id), store.rate_writes_per_store_per_minute]);
    }
    const limiter = app.ctx.rateLimiter;
    const inProcess = limiter.inProcess;
    const outcomes = inProcess
      ? budgets.map((b) => inProcess.take(...b, 1))
      : await Promise.all(budgets.map((b) => limiter.consume(...b)));
    const refused = outcomes.filter((o) => !o.allowed);
    // A refused request is not served: it must not spend the budgets that allowed it (one key over its
    // own limit would otherwise use up the store's budget and lock out the store's other keys).
    if (refused.length)
      await Promise.all(budgets.map((b, i) => (outcomes[i].allowed ? limiter.refund(...b) : null)));
    const tightest = refused.length
      ? refused.reduce((a, b) => (b.resetSeconds > a.resetSeconds ? b : a))
      : outcomes.reduce((a, b) => (b.remaining < a.remaining ? b : a));
    reply.header("ratelimit-limit", String(tightest.limit));
    reply.header("ratelimit-remaining", String(tightest.remaining));
    reply.header("ratelimit-reset", String(tightest.resetSeconds));
    if (refused.length) {
      throw new AppError(
        "rate_limited",
        `Too many requests; retry in ${tightest.resetSeconds} s.`,
        undefined,
        429,
        {
          "retry-after": String(tightest.resetSeconds),
        },
      );
    }
  });
}
