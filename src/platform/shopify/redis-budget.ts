import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import {
  type AnsweredCost,
  type CostBudget,
  RESERVATION_GRACE_MS,
  type Reservation,
  unspent,
} from "./budget.ts";

// The same arithmetic as InProcessCostBudget, atomic in Redis so every worker process shares one
// bucket per shop. KEYS[1] the shop's hash, KEYS[2] its flight (a sorted set of "<id>:<cost>" scored
// by the instant the reservation stops counting). ARGV now (ms), cost, member, grace, ttl. Answers
// the wait in ms.
const RESERVE = `
local s = redis.call('HMGET', KEYS[1], 'available', 'maximum', 'rate', 'at')
local now = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local wait = 0
if s[3] then
  local rate = tonumber(s[3])
  local available = math.min(tonumber(s[2]), tonumber(s[1]) + math.max(0, now - tonumber(s[4])) / 1000 * rate)
  redis.call('HSET', KEYS[1], 'available', tostring(available - cost), 'at', ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  if available < cost then wait = math.ceil((cost - available) / rate * 1000) end
end
redis.call('ZADD', KEYS[2], now + wait + tonumber(ARGV[4]), ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return wait
`;

// Ends a reservation; with a reported bucket (ARGV available, maximum, rate), the bucket becomes the
// lesser of it less the reservations still in flight and the budget's own reckoning plus what the
// call did not spend (ARGV unspent): a stale figure settled out of order never raises the budget.
// A call that failed without an answer gives its whole cost back (ARGV unspent) to the reckoning.
// ARGV now, member, has status ("1"/"0"), available, maximum, rate, ttl, unspent.
const SETTLE = `
redis.call('ZREM', KEYS[2], ARGV[2])
local now = tonumber(ARGV[1])
if ARGV[3] ~= '1' then
  local s = redis.call('HMGET', KEYS[1], 'available', 'maximum', 'rate', 'at')
  if s[3] then
    local refilled = math.min(tonumber(s[2]), tonumber(s[1]) + math.max(0, now - tonumber(s[4])) / 1000 * tonumber(s[3]))
    redis.call('HSET', KEYS[1], 'available', tostring(refilled + tonumber(ARGV[8])), 'at', ARGV[1])
  end
  return 0
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
local others = 0
for _, member in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  others = others + tonumber(string.match(member, ':([^:]+)$'))
end
local maximum = tonumber(ARGV[5])
local available = tonumber(ARGV[4]) - others
local s = redis.call('HMGET', KEYS[1], 'available', 'rate', 'at')
if s[2] then
  local reckoned = tonumber(s[1]) + math.max(0, now - tonumber(s[3])) / 1000 * tonumber(s[2])
  available = math.min(available, math.min(maximum, reckoned + tonumber(ARGV[8])))
end
redis.call('HSET', KEYS[1], 'available', tostring(available), 'maximum', ARGV[5], 'rate', ARGV[6], 'at', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
return 0
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

  async reserve(shop: string, cost: number): Promise<Reservation> {
    const id = randomUUID();
    const wait = await this.redis.eval(
      RESERVE,
      2,
      this.prefix + shop,
      `${this.prefix}${shop}:flight`,
      String(this.now()),
      String(cost),
      `${id}:${cost}`,
      String(RESERVATION_GRACE_MS),
      String(BUCKET_TTL_MS),
    );
    return { id, cost, waitMs: Number(wait) };
  }

  async settle(shop: string, reservation: Reservation, answered: AnsweredCost | null): Promise<void> {
    const status = answered?.status;
    await this.redis.eval(
      SETTLE,
      2,
      this.prefix + shop,
      `${this.prefix}${shop}:flight`,
      String(this.now()),
      `${reservation.id}:${reservation.cost}`,
      status ? "1" : "0",
      String(status?.currentlyAvailable ?? 0),
      String(status?.maximumAvailable ?? 0),
      String(status?.restoreRate ?? 0),
      String(BUCKET_TTL_MS),
      String(answered ? unspent(reservation, answered.spent) : reservation.cost),
    );
  }
}
