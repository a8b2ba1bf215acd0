/**
 * The event catalogue (contract "Events": Catalogue) and the rules that depend only on an event's name.
 */

export const EVENT_CATALOGUE = [
  "purchase_order.created",
  "purchase_order.updated",
  "purchase_order.ordered",
  "purchase_order.in_transit",
  "purchase_order.receipt_recorded",
  "purchase_order.received",
  "purchase_order.closed",
  "purchase_order.reopened",
  "purchase_order.archived",
  "purchase_order.deleted",
  "purchase_order.overdue",
  "receipt.voided",
  "supplier.created",
  "supplier.updated",
  "supplier.archived",
  "supplier.merged",
  "stock_adjustment.updated",
  "stock_adjustment.applied",
  "stock_adjustment.cancelled",
  "item.low_stock",
  "item.out_of_stock",
  "item.reorder_point",
  "item.overstock",
  "webhook.test",
] as const;

export type EventName = (typeof EVENT_CATALOGUE)[number];

export const TEST_EVENT = "webhook.test";

/** `*` in a webhook's `events` subscribes to everything, including events added later. */
export const ALL_EVENTS = "*";

/** The contract's folding window: `.updated` events of one record within it become one delivery. */
export const FOLD_WINDOW_MS = 5_000;

/** Past this many events in the last hour a store's deliveries go through its slow lane. */
export const SLOW_LANE_EVENTS_PER_HOUR = 1_000;

/** Events and delivery rows are kept this long. */
export const RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export function isCatalogueEvent(name: string): boolean {
  return (EVENT_CATALOGUE as readonly string[]).includes(name);
}

/**
 * Only `.updated` events fold; lifecycle events (created, ordered, archived, merged, …) never do, so a
 * consumer sees every lifecycle step.
 */
export function foldsWithin(name: string): boolean {
  return name.endsWith(".updated");
}

/** Whether a webhook subscribed to `events` receives `name` in a fan-out (never `webhook.test`). */
export function subscribes(events: readonly string[], name: string): boolean {
  if (name === TEST_EVENT) return false;
  return events.includes(ALL_EVENTS) || events.includes(name);
}

/** The dedupe key of the pending fold of one record's `.updated` events. */
export function foldKey(storeId: number, subjectType: string, subjectId: number, name: string): string {
  return `webhooks.fold:${storeId}:${subjectType}:${subjectId}:${name}`;
}

/**
 * When a fold job should run: at the end of the window opened by the first `.updated` event of the
 * record, whatever came after it (a record changing every two seconds is still delivered every five,
 * never postponed indefinitely).
 */
export function foldRunAt(now: Date, pendingRunAt: Date | null): Date {
  return pendingRunAt ?? new Date(now.getTime() + FOLD_WINDOW_MS);
}
