import { sql } from "kysely";
import { arrayParam, unnestRows } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";
import { notAcknowledged } from "./pushes.ts";

/** An item cost a push is about to send, and the movement (the last of its document's) it comes from. */
export interface CostToSend {
  inventoryItemId: number;
  movementId: number;
  unitCost: string;
  currency: string | null;
}

/**
 * For each cost a push means to send, the cost of the item's last earlier movement (lower id) that
 * another push has out now (marked in flight, not acknowledged), when there is one: `same` when it
 * is this cost. Such a push sets that cost on the platform, or left it out because the platform held
 * it, or because a still earlier push had it out: by induction on the ids, the platform holds it once
 * the pushes out are done. So a push that finds its cost `same` leaves it out (10 Shopify points an
 * item, and it would change nothing), and one that finds another cost sends its own whatever the
 * mirror shows (the earlier push sets that other cost, and the later one given must win). Only
 * earlier movements count: two pushes out at once each waiting for the other would send nothing.
 * A push whose marks come off before it sent the cost (the platform refused its document having
 * applied nothing) sends it at its retry; one that fails for good leaves the mirror without it, so
 * the next push of that cost sends it again.
 *
 * The two probes per item are the in-flight indexes of migration 048 (batched and sent alone), and
 * the statement is written so that no statistics make it anything else (the batch queue's are often
 * taken while it is empty, then a burst fills it): the candidates are gathered whole behind `offset 0`
 * and sorted after, since an `order by id desc limit 1` over them made a backward walk of a primary
 * key that stops at the first match a candidate; `id < before` is written `(…) is true` so no primary
 * key range serves it; a batch row's ledger row is read by its key in a lateral `limit 1`, not joined
 * (pushInFlightAt says why). Before (fc35398) the batch half walked `push_batch_movements_pkey` below
 * each cost's movement, ~1,100 rows filtered a probe (docs/performance.md, "Pushes and batches").
 */
export async function costsInFlightBefore(
  db: Db,
  storeId: number,
  costs: readonly CostToSend[],
  /** The document's own movements, in flight with it: not another push's. */
  own: readonly number[],
): Promise<Map<number, { same: boolean }>> {
  if (costs.length === 0) return new Map();
  const mine = arrayParam("bigint", own);
  const { rows } = await sql<{ item: string | number; same: boolean }>`
    select c.item, (x.unit_cost = c.unit_cost and x.currency is not distinct from c.currency) as same
    from (${unnestRows(costs, [
      ["item", "bigint", (c) => c.inventoryItemId],
      ["before_id", "bigint", (c) => c.movementId],
      ["unit_cost", "numeric", (c) => c.unitCost],
      ["currency", "text", (c) => c.currency],
    ])}) as c(item, before_id, unit_cost, currency)
    cross join lateral (
      select o.unit_cost, o.currency from (
        select m.id, m.unit_cost, m.unit_cost_currency as currency from stock_movements m
        where m.store_id = ${storeId} and m.inventory_item_id = c.item and (m.id < c.before_id) is true
          and m.push_sent_at is not null and ${notAcknowledged("m")}
          and m.unit_cost is not null and not (m.id = any(${mine}))
        union all
        select b.movement_id, m.unit_cost, m.currency from push_batch_movements b
        cross join lateral (
          select m.unit_cost, m.unit_cost_currency as currency from stock_movements m
          where m.id = b.movement_id and m.store_id = ${storeId} and ${notAcknowledged("m")}
            and m.unit_cost is not null
          limit 1
        ) as m
        where b.store_id = ${storeId} and b.inventory_item_id = c.item and b.in_flight
          and (b.movement_id < c.before_id) is true and not (b.movement_id = any(${mine}))
        offset 0
      ) as o
      order by o.id desc
      limit 1
    ) as x`.execute(db);
  return new Map(rows.map((r) => [Number(r.item), { same: r.same }]));
}
