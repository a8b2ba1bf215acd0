import type { Redis } from "ioredis";
import type { CostBudget, ThrottleStatus } from "./budget.ts";

// The same arithmetic as InProcessCostBudget.reserve, atomic in Redis so every worker process shares
// one bucket per shop. KEYS[1] the shop's hash; ARGV now (ms), cost. Answers the wait in ms.
const RESERVE = `
local s = redis.call('HMGET', KEYS[1], 'available', 'maximum', 'rate', 'at')
if not s[3] then return 0 end
local now = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local rate = tonumber(s[3])
local available = math.min(tonumber(s[2]), tonumber(s[1]) + math.max(0, now - tonumber(s[4])) / 1000 * rate)
redis.call('HSET', KEYS[1], 'available', tostring(available - cost), 'at', ARGV[1])
redis.call('PEXPIRE', KEYS[1], 3600000)
if available >= cost then return 0 end
return math.ceil((cost - available) / rate * 1000)
`;

/** Buckets older than an hour are forgotten: a full bucket is what Shopify has after that anyway. */
const BUCKET_TTL_MS = 3_600_000;

/** The budget shared by every process through Redis (REDIS_URL set). */
export class RedisCostBudget implements CostBudget {
  constructor(
    private readonly redis: Redis,
    private readonly now: () => number = Date.now,
    private readonly prefix = "shopify:cost:",
  ) {}

  async reserve(shop: string, cost: number): Promise<number> {
    const wait = await this.redis.eval(RESERVE, 1, this.prefix + shop, String(this.now()), String(cost));
    return Number(wait);
  }

  async report(shop: string, status: ThrottleStatus): Promise<void> {
    const key = this.prefix + shop;
    await this.redis
      .multi()
      .hset(key, {
        available: String(status.currentlyAvailable),
        maximum: String(status.maximumAvailable),
        rate: String(status.restoreRate),
        at: String(this.now()),
      })
      .pexpire(key, BUCKET_TTL_MS)
      .exec();
  }
}
