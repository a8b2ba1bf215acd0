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

/**
 * Per-minute budgets. The budget sizes are per-store settings (a plan), so limiters are made per
 * (kind, size) on first use. Memory by default; Redis when configured so every API process draws on
 * one budget, with an in-memory insurance limiter if Redis is briefly unreachable.
 */
export class RateLimiter {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  /** The shared store of every budget, or null for process memory (the admin throttle uses it too). */
  constructor(readonly redis: Redis | null) {}

  private limiterFor(kind: LimitKind, points: number): RateLimiterAbstract {
    const id = `${kind}:${points}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const options = { points, duration: 60, keyPrefix: `rl:${kind}` };
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
    await this.limiterFor(kind, points)
      .reward(subject, 1)
      .catch(() => {});
  }
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
    const outcomes = await Promise.all(budgets.map((b) => app.ctx.rateLimiter.consume(...b)));
    const refused = outcomes.filter((o) => !o.allowed);
    // A refused request is not served: it must not spend the budgets that allowed it (one key over its
    // own limit would otherwise use up the store's budget and lock out the store's other keys).
    if (refused.length)
      await Promise.all(
        budgets.map((b, i) => (outcomes[i].allowed ? app.ctx.rateLimiter.refund(...b) : null)),
      );
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
