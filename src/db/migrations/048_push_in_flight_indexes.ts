import type { IndexBuilds } from "./index-builds.ts";

/**
 * The two indexes of the in-flight read by level (migration 046 fills the columns), built without
 * holding the tables' writes (index-builds.ts). 046 built them in its transaction until the
 * nineteenth session; where it did, both are found valid and this migration only records itself.
 * - `push_batch_movements_in_flight`: the marks in flight by level, the batched half of the question
 *   "is another push of this level in flight?", one probe a level.
 * - `stock_movements_sent_alone`: the movements sent alone (`push_sent_at`, migration 037) and not
 *   acknowledged, by level: the other half, one probe a level. A movement enters it only when a push
 *   marks it sent alone (a retry, a push with nothing waiting, every Shopify push; never at recording)
 *   and a ledger row is never updated in place here anyway (its pages are full, and `pushed_at` is in
 *   the partial indexes' predicates). Its build reads the whole ledger: the reason for this form.
 */
export const pushInFlightIndexesMigration: IndexBuilds = {
  indexBuilds: [
    {
      name: "push_batch_movements_in_flight",
      on: "push_batch_movements (store_id, inventory_item_id, location_id) where in_flight",
    },
    {
      // "Not acknowledged" as the push's statements write it (stock/pushes.ts, notAcknowledged): a
      // statement that says `pushed_at is null` may use stock_movements_unpushed, whose statistics
      // expect one waiting movement a store, and filter every waiting one (19,000 in a burst) instead.
      name: "stock_movements_sent_alone",
      on: `stock_movements (store_id, inventory_item_id, location_id)
        where push_sent_at is not null and (pushed_at is null) is true`,
    },
  ],
};
