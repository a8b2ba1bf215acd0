import type { Redis } from "ioredis";
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from "rate-limiter-flexible";
import { AppError } from "../domain/errors.ts";

/** Wrong admin tokens one client address may send per window (the console's sign-in allows as many). */
export const ADMIN_AUTH_FAILURES_ALLOWED = 10;
export const ADMIN_AUTH_WINDOW_SECONDS = 15 * 60;

/**
 * Counts failed admin authentications per client address and refuses an address that used up its
 * allowance, whatever token it sends next (answering a right token would let guessing go on at full
 * speed). Shared through Redis when it is configured, so every API process counts the same failures;
 * in memory otherwise, and as insurance while Redis is unreachable.
 */
export class AdminAuthThrottle {
  private readonly limiter: RateLimiterAbstract;

  constructor(redis: Redis | null) {
    const options = {
      points: ADMIN_AUTH_FAILURES_ALLOWED,
      duration: ADMIN_AUTH_WINDOW_SECONDS,
      keyPrefix: "rl:admin-auth",
    };
    this.limiter = redis
      ? new RateLimiterRedis({
          ...options,
          storeClient: redis,
          insuranceLimiter: new RateLimiterMemory(options),
        })
      : new RateLimiterMemory(options);
  }

  /** Throws 429 `rate_limited` when the address has no failures left. */
  async checkAllowed(address: string): Promise<void> {
    const state = await this.limiter.get(address).catch(() => null);
    if (state && state.consumedPoints >= ADMIN_AUTH_FAILURES_ALLOWED) throw refusal(state);
  }

  /**
   * Records one failure. Counting is atomic, so requests that passed `checkAllowed` together still
   * cannot exceed the allowance: the failure beyond it is answered 429 instead of 401.
   */
  async recordFailure(address: string): Promise<void> {
    try {
      await this.limiter.consume(address, 1);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) throw refusal(rejection);
      throw rejection;
    }
  }
}

function refusal(state: RateLimiterRes): AppError {
  const seconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  return new AppError(
    "rate_limited",
    `Too many failed admin authentications from this address; retry in ${seconds} s.`,
    undefined,
    429,
    { "retry-after": String(seconds) },
  );
}
