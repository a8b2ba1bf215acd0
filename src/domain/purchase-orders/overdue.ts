/**
 * purchase_order.overdue: once per order per day while the order is open and past its
 * expected date, from a daily scan at 00:05 in the store's timezone. The periodic task runs often; each
 * run takes, per store, the "scan day" (the local date 5 minutes ago, so a day's scan starts at 00:05)
 * and fires for every open order whose expected_at is before that day and whose last_overdue_on is not
 * that day yet. last_overdue_on makes it fire once per order per day, whichever process runs the scan.
 */
import { sql } from "kysely";
import type { AppContext } from "../../context.ts";
import { emit } from "../../events/outbox.ts";
import type { PeriodicTask } from "../../jobs/worker.ts";
import { loadPurchaseOrders } from "./loading.ts";
import { OPEN_STATUSES } from "./transitions.ts";

const BATCH = 100;

export async function scanOverdue(ctx: AppContext): Promise<number> {
  const now = ctx.clock.now();
  let fired = 0;
  for (;;) {
    const count = await ctx.db.transaction().execute(async (trx) => {
      const due = await trx
        .selectFrom("purchase_orders as po")
        .innerJoin("stores as s", "s.id", "po.store_id")
        .select([
          "po.id",
          "po.store_id",
          sql<string>`((${now}::timestamptz at time zone s.timezone) - interval '5 minutes')::date::text`.as(
            "scan_day",
          ),
        ])
        .where("po.status", "in", [...OPEN_STATUSES])
        .where("po.expected_at", "is not", null)
        .where(
          sql<boolean>`po.expected_at < ((${now}::timestamptz at time zone s.timezone) - interval '5 minutes')::date`,
        )
        .where((eb) =>
          eb.or([
            eb("po.last_overdue_on", "is", null),
            eb(
              "po.last_overdue_on",
              "<",
              sql<string>`((${now}::timestamptz at time zone s.timezone) - interval '5 minutes')::date`,
            ),
          ]),
        )
        .orderBy("po.id")
        .limit(BATCH)
        .forUpdate("po")
        .skipLocked()
        .execute();
      if (due.length === 0) return 0;
      const byStore = new Map<number, typeof due>();
      for (const row of due) byStore.set(row.store_id, [...(byStore.get(row.store_id) ?? []), row]);
      for (const [storeId, rows] of byStore) {
        for (const row of rows) {
          await trx
            .updateTable("purchase_orders")
            .set({ last_overdue_on: row.scan_day })
            .where("id", "=", row.id)
            .execute();
        }
        const orders = await loadPurchaseOrders(
          trx,
          storeId,
          rows.map((r) => r.id),
        );
        for (const row of rows) {
          const order = orders.get(row.id);
          if (!order) continue;
          await emit(ctx, trx, {
            storeId,
            name: "purchase_order.overdue",
            subjectType: "purchase_order",
            subjectId: row.id,
            data: order,
          });
        }
      }
      return due.length;
    });
    fired += count;
    if (count < BATCH) break;
  }
  return fired;
}

export const OVERDUE_TASK = "purchase_orders.overdue_scan";

export const overdueTask: PeriodicTask = {
  name: OVERDUE_TASK,
  intervalMs: 60_000,
  run: async (ctx) => {
    await scanOverdue(ctx);
  },
};
