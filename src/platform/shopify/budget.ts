/**
 * The query-cost budget of one shop, shared by every caller that talks to it (Shopify keeps one leaky
 * bucket per app and shop: `extensions.cost.throttleStatus`). A caller reserves the cost it is about
 * to request and is told how long to wait first; every answer then reports the bucket as Shopify sees
 * it. Reservations go below zero: the next caller waits behind the one before, so callers queue
 * instead of all waking at once into a THROTTLED answer. A shop the budget has heard nothing of yet
 * is not waited for (its first answer tells the figures).
 */
export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

export interface CostBudget {
  /** Takes `cost` points of the shop's bucket; answers the milliseconds to wait before sending. */
  reserve(shop: string, cost: number): Promise<number>;
  /** What Shopify reported after a call: the bucket as it stands now. */
  report(shop: string, status: ThrottleStatus): Promise<void>;
}

interface Bucket {
  available: number;
  maximum: number;
  restoreRate: number;
  at: number;
}

/** Milliseconds until `available` points, refilling at `restoreRate` a second, cover `cost`. */
export function waitForCost(available: number, cost: number, restoreRate: number): number {
  if (available >= cost) return 0;
  return Math.ceil(((cost - available) / restoreRate) * 1000);
}

/** One process's budget: enough without REDIS_URL, where one process talks to Shopify. */
export class InProcessCostBudget implements CostBudget {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = Date.now) {}

  async reserve(shop: string, cost: number): Promise<number> {
    const bucket = this.buckets.get(shop);
    if (!bucket) return 0;
    const t = this.now();
    const available = Math.min(
      bucket.maximum,
      bucket.available + ((t - bucket.at) / 1000) * bucket.restoreRate,
    );
    bucket.available = available - cost;
    bucket.at = t;
    return waitForCost(available, cost, bucket.restoreRate);
  }

  async report(shop: string, status: ThrottleStatus): Promise<void> {
    this.buckets.set(shop, {
      available: status.currentlyAvailable,
      maximum: status.maximumAvailable,
      restoreRate: status.restoreRate,
      at: this.now(),
    });
  }
}
