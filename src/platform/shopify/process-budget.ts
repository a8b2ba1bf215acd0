import { createRequire } from "node:module";
import type { Redis } from "ioredis";
import type { AppContext } from "../../context.ts";
import { type CostBudget, InProcessCostBudget } from "./budget.ts";
import { RedisCostBudget } from "./redis-budget.ts";

const BUDGET_KEY = {};

/**
 * The process's one cost budget for every shop: in Redis when REDIS_URL is set (shared with every
 * other worker process), else in this process. Shopify's bucket refills in real time, so the budget
 * keeps the wall clock, not the service's injected one.
 */
export function shopifyBudgetOf(ctx: Pick<AppContext, "config" | "resources">): CostBudget {
  return ctx.resources.get(
    BUDGET_KEY,
    () => {
      if (!ctx.config.redisUrl) return { budget: new InProcessCostBudget(), redis: null };
      // Required here, not imported above: a process without REDIS_URL never loads ioredis (~0.2 s of CPU).
      const { Redis: RedisClient } = createRequire(import.meta.url)("ioredis") as typeof import("ioredis");
      const redis: Redis = new RedisClient(ctx.config.redisUrl, {
        maxRetriesPerRequest: 1,
        lazyConnect: false,
      });
      redis.on("error", () => {});
      return { budget: new RedisCostBudget(redis) as CostBudget, redis };
    },
    (held) => held.redis?.disconnect(),
  ).budget;
}
