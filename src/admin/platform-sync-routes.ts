import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { Db } from "../db/database.ts";
import { AppError, invalidTransition } from "../domain/errors.ts";
import { orderNumbersOf } from "../domain/purchase-orders/index.ts";
import { ordersOfReceipts } from "../domain/receipts/index.ts";
import { markSyncPending, PUSH_JOB, type SyncSubjectType, syncStateCounts } from "../domain/stock/index.ts";
import { adjustmentNumbersOf } from "../domain/stock-adjustments/index.ts";
import { getStore } from "../domain/stores/index.ts";
import { DataOf, ErrorBody, Id, Nullable, Timestamp } from "../http/schemas/common.ts";
import { mirrorSyncStatus } from "../platform/catalog-sync.ts";
import { parsePushSubject } from "../platform/job-payloads.ts";
import { reconciliationStatus } from "../platform/shopify/inbound/index.ts";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 422: ErrorBody };
const adminTag = { tags: ["admin"] };
const StoreParams = Type.Object({ id: Id });

const SyncStatusSchema = Type.Object({
  counts: Type.Object({ pending: Type.Integer(), synced: Type.Integer(), failed: Type.Integer() }),
  failed: Type.Array(
    Type.Object({
      job_id: Type.Integer(),
      subject_type: Type.String(),
      subject_id: Type.Integer(),
      /**
       * How people name the record: a purchase order's or stock adjustment's number; for a receipt (which
       * has none) its order's number. Null when the record is gone.
       */
      subject_number: Nullable(Type.String()),
      /** The purchase order the record is, or belongs to (a receipt's); null for an adjustment. */
      purchase_order_id: Nullable(Type.Integer()),
      attempts: Type.Integer(),
      error: Nullable(Type.String()),
      attempted_at: Nullable(Timestamp),
    }),
  ),
  mirror: Type.Object({
    watermark: Nullable(Type.String()),
    synced_at: Nullable(Timestamp),
    last_error: Nullable(Type.String()),
  }),
  /** A Shopify store's level reconciliation (null for a platform that needs none). */
  reconciliation: Nullable(
    Type.Object({
      last_reconciled_at: Nullable(Timestamp),
      levels_checked: Type.Integer(),
      levels_repaired: Type.Integer(),
      last_error: Nullable(Type.String()),
      failed_at: Nullable(Timestamp),
    }),
  ),
});

const NOT_RECONCILED_YET = {
  last_reconciled_at: null,
  levels_checked: 0,
  levels_repaired: 0,
  last_error: null,
  failed_at: null,
};

/**
 * The numbers people know the failed pushes' records by (three reads, whatever the count), so the
 * console shows "PO-0034" and links it rather than an internal id.
 */
async function subjectNames(
  db: Db,
  storeId: number,
  subjects: readonly { subject_type: SyncSubjectType; subject_id: number }[],
) {
  const idsOf = (type: SyncSubjectType) =>
    subjects.filter((s) => s.subject_type === type).map((s) => s.subject_id);
  const receiptOrders = await ordersOfReceipts(db, storeId, idsOf("receipt"));
  const orderNumbers = await orderNumbersOf(db, storeId, [
    ...idsOf("purchase_order"),
    ...receiptOrders.values(),
  ]);
  const adjustmentNumbers = await adjustmentNumbersOf(db, storeId, idsOf("stock_adjustment"));
  return (s: { subject_type: SyncSubjectType; subject_id: number }) => {
    if (s.subject_type === "stock_adjustment")
      return { subject_number: adjustmentNumbers.get(s.subject_id) ?? null, purchase_order_id: null };
    const orderId = s.subject_type === "receipt" ? receiptOrders.get(s.subject_id) : s.subject_id;
    const number = orderId === undefined ? undefined : orderNumbers.get(orderId);
    return number === undefined
      ? { subject_number: null, purchase_order_id: null }
      : { subject_number: number, purchase_order_id: orderId as number };
  };
}

/** The platform loop's status for the admin: records by sync state, failed pushes (and their retry), the mirror sync. */
export async function platformSyncAdminRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    "/stores/:id/sync",
    { schema: { ...adminTag, params: StoreParams, response: { 200: DataOf(SyncStatusSchema), ...errors } } },
    async (request) => {
      const store = await getStore(ctx.db, request.params.id);
      const counts = await syncStateCounts(ctx.db, store.id);
      const failedJobs = await ctx.jobs.failedJobs(ctx.db, PUSH_JOB, store.id, 250);
      const subjects = failedJobs.map((j) => parsePushSubject(j.payload));
      const names = await subjectNames(ctx.db, store.id, subjects);
      const mirror = await mirrorSyncStatus(ctx.db, store.id);
      const reconciliation =
        store.platform === "shopify"
          ? ((await reconciliationStatus(ctx.db, store.id)) ?? NOT_RECONCILED_YET)
          : null;
      return {
        data: {
          counts,
          failed: failedJobs.map((j, i) => {
            const payload = subjects[i];
            return {
              job_id: j.id,
              subject_type: payload.subject_type,
              subject_id: payload.subject_id,
              ...names(payload),
              attempts: j.attempts,
              error: j.last_error,
              attempted_at: j.updated_at.toISOString(),
            };
          }),
          mirror,
          reconciliation,
        },
      };
    },
  );

  app.post(
    "/stores/:id/sync/:job_id/retry",
    {
      schema: {
        ...adminTag,
        params: Type.Object({ id: Id, job_id: Id }),
        response: {
          200: DataOf(
            Type.Object({
              job_id: Type.Integer(),
              state: Type.String(),
              subject_type: Type.String(),
              subject_id: Type.Integer(),
            }),
          ),
          ...errors,
        },
      },
    },
    async (request) => {
      const store = await getStore(ctx.db, request.params.id);
      const jobId = request.params.job_id;
      return ctx.db.transaction().execute(async (trx) => {
        const job = await ctx.jobs.lockJob(trx, PUSH_JOB, store.id, jobId);
        if (!job) throw new AppError("not_found", "No such platform push in this store.");
        if (job.state !== "failed") throw invalidTransition(`the push is ${job.state}, not failed`);
        await ctx.jobs.retryFailed(trx, job.id, store.id);
        const payload = parsePushSubject(job.payload);
        await markSyncPending(
          trx,
          store.id,
          { type: payload.subject_type, id: payload.subject_id },
          ctx.clock.now(),
        );
        return {
          data: {
            job_id: job.id,
            state: "queued",
            subject_type: payload.subject_type,
            subject_id: payload.subject_id,
          },
        };
      });
    },
  );
}
