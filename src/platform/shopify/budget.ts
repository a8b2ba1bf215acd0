import { randomUUID } from "node:crypto";

/**
 * The query-cost budget of one shop, shared by every caller that talks to it (Shopify keeps one leaky
 * bucket per app and shop: `extensions.cost.throttleStatus`). A caller reserves the cost it is about
 * to request and is told how long to wait first; when its answer comes, it settles the reservation
 * with the bucket as Shopify reported it. Reservations go below zero: the next caller waits behind
 * the one before, so callers queue instead of all waking at once into a THROTTLED answer. A shop the
 * budget has heard nothing of yet is not waited for (its first answer tells the figures).
 *
 * A reported figure knows nothing of the calls other callers have reserved and not yet settled
 * (waiting their turn, or sent and not answered): the budget keeps them in flight and takes them off
 * what Shopify reports, else every answer would hand their points out a second time. A reservation
 * never settled (its process died) leaves the flight a minute after the call was due.
 */
export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

export interface Reservation {
  readonly id: string;
  readonly cost: number;
  /** Milliseconds to wait before sending. */
  readonly waitMs: number;
}

export interface CostBudget {
  /** Takes `cost` points of the shop's bucket until the call is settled. */
  reserve(shop: string, cost: number): Promise<Reservation>;
  /** Ends a reservation: the call was answered (with the bucket Shopify reported, if it did) or failed. */
  settle(shop: string, reservation: Reservation, status: ThrottleStatus | null): Promise<void>;
}

/** How long after its call was due a reservation never settled still counts as in flight. */
export const RESERVATION_GRACE_MS = 60_000;

interface Bucket {
  available: number;
  maximum: number;
  restoreRate: number;
  at: number;
}

interface InFlight {
  cost: number;
  until: number;
}

/** Milliseconds until `available` points, refilling at `restoreRate` a second, cover `cost`. */
export function waitForCost(available: number, cost: number, restoreRate: number): number {
  if (available >= cost) return 0;
  return Math.ceil(((cost - available) / restoreRate) * 1000);
}

/** One process's budget: enough without REDIS_URL, where one process talks to Shopify. */
export class InProcessCostBudget implements CostBudget {
  private readonly buckets = new Map<string, Bucket>();
  private readonly flights = new Map<string, Map<string, InFlight>>();

  constructor(private readonly now: () => number = Date.now) {}

  async reserve(shop: string, cost: number): Promise<Reservation> {
    const t = this.now();
    const bucket = this.buckets.get(shop);
    let waitMs = 0;
    if (bucket) {
      const available = Math.min(
        bucket.maximum,
        bucket.available + ((t - bucket.at) / 1000) * bucket.restoreRate,
      );
      bucket.available = available - cost;
      bucket.at = t;
      waitMs = waitForCost(available, cost, bucket.restoreRate);
    }
    const reservation = { id: randomUUID(), cost, waitMs };
    this.flightOf(shop).set(reservation.id, { cost, until: t + waitMs + RESERVATION_GRACE_MS });
    return reservation;
  }

  async settle(shop: string, reservation: Reservation, status: ThrottleStatus | null): Promise<void> {
    const flight = this.flightOf(shop);
    flight.delete(reservation.id);
    if (!status) return;
    const t = this.now();
    let others = 0;
    for (const [id, call] of flight) {
      if (call.until <= t) flight.delete(id);
      else others += call.cost;
    }
    this.buckets.set(shop, {
      available: status.currentlyAvailable - others,
      maximum: status.maximumAvailable,
      restoreRate: status.restoreRate,
      at: t,
    });
  }

  private flightOf(shop: string): Map<string, InFlight> {
    let flight = this.flights.get(shop);
    if (!flight) {
      flight = new Map();
      this.flights.set(shop, flight);
    }
    return flight;
  }
}
