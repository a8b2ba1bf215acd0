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
 *
 * Answers also settle out of order: a call answered early can be settled after a later one, and its
 * figure is then stale (it predates charges already taken off the flight). So a reported figure may
 * only lower the budget, never raise it: the budget becomes the lesser of Shopify's figure (less the
 * flight) and its own reckoning plus what this call did not spend (Shopify's refund of the requested
 * cost over the actual one, the whole cost for a THROTTLED call). Being low costs a short wait, being
 * high costs a THROTTLED answer; the bucket's refill brings a low reckoning back up by itself. A call
 * that failed without an answer gives its points back: most failures (refused connections, 5xx) took
 * nothing, and when one did (a timeout after Shopify ran the call), the next answer's lower figure
 * corrects the reckoning.
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

/** What Shopify's answer to a call said of the cost: the bucket after it and the points it took. */
export interface AnsweredCost {
  status: ThrottleStatus;
  /** `actualQueryCost`: null when Shopify refused the call (THROTTLED) and took nothing. */
  spent: number | null;
}

export interface CostBudget {
  /** Takes `cost` points of the shop's bucket until the call is settled. */
  reserve(shop: string, cost: number): Promise<Reservation>;
  /** Ends a reservation: the call was answered (with the cost Shopify reported, if it did) or failed. */
  settle(shop: string, reservation: Reservation, answered: AnsweredCost | null): Promise<void>;
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

/** Points of a reservation its call did not spend: given back to the budget's own reckoning. */
export function unspent(reservation: Reservation, spent: number | null): number {
  return Math.max(0, reservation.cost - (spent ?? 0));
}

/** Milliseconds until `available` points, refilling at `restoreRate` a second, cover `cost`. */
export function waitForCost(available: number, cost: number, restoreRate: number): number {
  if (available >= cost) return 0;
  return Math.ceil(((cost - available) / restoreRate) * 1000);
}

/** The bucket's points at `t`, refilled since it was last reckoned. */
function refilled(bucket: Bucket, t: number): number {
  return Math.min(bucket.maximum, bucket.available + ((t - bucket.at) / 1000) * bucket.restoreRate);
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
      const available = refilled(bucket, t);
      bucket.available = available - cost;
      bucket.at = t;
      waitMs = waitForCost(available, cost, bucket.restoreRate);
    }
    const reservation = { id: randomUUID(), cost, waitMs };
    this.flightOf(shop).set(reservation.id, { cost, until: t + waitMs + RESERVATION_GRACE_MS });
    return reservation;
  }

  async settle(shop: string, reservation: Reservation, answered: AnsweredCost | null): Promise<void> {
    const flight = this.flightOf(shop);
    flight.delete(reservation.id);
    const t = this.now();
    const bucket = this.buckets.get(shop);
    if (!answered) {
      if (bucket) Object.assign(bucket, { available: refilled(bucket, t) + reservation.cost, at: t });
      return;
    }
    let others = 0;
    for (const [id, call] of flight) {
      if (call.until <= t) flight.delete(id);
      else others += call.cost;
    }
    const { status } = answered;
    const reported = status.currentlyAvailable - others;
    const reckoned = bucket
      ? Math.min(status.maximumAvailable, refilled(bucket, t) + unspent(reservation, answered.spent))
      : reported;
    this.buckets.set(shop, {
      available: Math.min(reported, reckoned),
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
