import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/database.ts";

/** The first wait before polling a running bulk operation again; each later wait doubles. */
export const BULK_POLL_FIRST_MS = 1000;
/**
 * The longest wait between two polls. A `bulk_operations/finish` delivery ends a wait at once, so this
 * only bounds how late a lost delivery is made up for.
 */
export const BULK_POLL_FALLBACK_MS = 60_000;
/** How often a wait looks for the finish delivery: a database read, no Shopify call. */
export const BULK_FINISH_CHECK_MS = 250;

export interface BulkWaitDeps {
  db: Db;
  clock: Clock;
  /** `x.myshopify.com`: whose deliveries end the wait. */
  shop: string;
  sleep: (ms: number) => Promise<void>;
}

/**
 * The wait of an import between two polls of its running bulk operation (`polls`: how many were made).
 * It ends as soon as a `bulk_operations/finish` for the shop arrives after it began (the intake records
 * every delivery's event id in shopify_webhook_events, whichever process took it), else after 1 s, 2 s,
 * 4 s … up to BULK_POLL_FALLBACK_MS: a long import is asked about every minute instead of every
 * second, and still goes on the moment Shopify says it finished.
 */
export function bulkWaitFor(deps: BulkWaitDeps): (polls: number) => Promise<void> {
  return async (polls) => {
    const limit = Math.min(BULK_POLL_FALLBACK_MS, BULK_POLL_FIRST_MS * 2 ** Math.max(0, polls - 1));
    const since = deps.clock.now();
    const before = new Set(await finishDeliveries(deps.db, deps.shop, since));
    for (let waited = 0; waited < limit; waited += BULK_FINISH_CHECK_MS) {
      await deps.sleep(Math.min(BULK_FINISH_CHECK_MS, limit - waited));
      const now = await finishDeliveries(deps.db, deps.shop, since);
      if (now.some((id) => !before.has(id))) return;
    }
  };
}

/** The event ids of the shop's bulk_operations/finish deliveries taken since `since` (by received_at's index). */
async function finishDeliveries(db: Db, shop: string, since: Date): Promise<string[]> {
  const rows = await db
    .selectFrom("shopify_webhook_events")
    .select("event_id")
    .where("received_at", ">=", since)
    .where("shop", "=", shop)
    .where("topic", "=", "bulk_operations/finish")
    .execute();
  return rows.map((r) => r.event_id);
}
