import type { Selectable } from "kysely";
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { StockMovementsTable } from "../db/tables/catalog.ts";
import { refreshLevels } from "../domain/catalog/levels.ts";
import type { AppContext } from "../http/context.ts";
import { type JobHandler, PermanentJobError } from "../jobs/worker.ts";
import {
  type InventoryAdjustment,
  type InventoryQuantityChange,
  PlatformPermanentError,
} from "./connector.ts";
import { connectorForStore } from "./registry.ts";
import { PUSH_JOB, type SyncSubjectType } from "./stock-pipeline.ts";
import { requestCatalogSync } from "./sync-jobs.ts";

/**
 * The stock push worker (decisions §7). A `platform.push` job carries the movements one stock-moving
 * record wrote; each movement goes to the platform as one ledger document whose idempotency key is
 * derived from the movement id, and is acknowledged (pushed_at) right after the platform answered.
 * A worker that dies between the push and the acknowledgement leaves the movement unacknowledged;
 * the retry pushes it again with the same key and the platform answers the first result without
 * moving stock again.
 *
 * platform_sync of the record: pending while anything is unacknowledged; synced once every movement
 * of the record is; failed after a permanent refusal or after the 6th attempt (backoff 10 s, 30 s,
 * 2 min, 10 min, 1 h). Every attempt sets attempted_at and error.
 */

export const PUSH_MAX_ATTEMPTS = 6;
export const PUSH_RETRY_DELAYS_MS = [10_000, 30_000, 120_000, 600_000, 3_600_000] as const;

/** Fault injection for tests: runs after the platform accepted a movement, before it is acknowledged. */
export const pushTestHooks: { afterPush: ((movementId: number) => void | Promise<void>) | null } = {
  afterPush: null,
};

type Movement = Selectable<StockMovementsTable>;

interface PushPayload {
  store_id: number;
  subject_type: SyncSubjectType;
  subject_id: number;
  movement_ids: number[];
}

export function movementIdempotencyKey(storeId: number, movementId: number): string {
  return `stockroom-${storeId}-movement-${movementId}`;
}

/** One movement as one platform ledger document. */
export function adjustmentFor(movement: Movement): InventoryAdjustment {
  const changes: InventoryQuantityChange[] = [];
  const at = { inventoryItemId: movement.inventory_item_id, locationId: movement.location_id };
  if (movement.available_delta !== 0)
    changes.push({ name: "available", ...at, delta: movement.available_delta });
  const onHandOnly = movement.on_hand_delta - movement.available_delta;
  if (onHandOnly !== 0) changes.push({ name: "on_hand", ...at, delta: onHandOnly });
  if (movement.incoming_delta !== 0)
    changes.push({ name: "incoming", ...at, delta: movement.incoming_delta });
  return {
    idempotencyKey: movementIdempotencyKey(movement.store_id, movement.id),
    reason: movement.reason,
    referenceDocumentUri: movement.reference,
    changes,
    itemCosts:
      movement.unit_cost !== null
        ? [
            {
              inventoryItemId: movement.inventory_item_id,
              unitCost: movement.unit_cost,
              currency: movement.unit_cost_currency,
            },
          ]
        : [],
  };
}

function payloadOf(job: { payload: Record<string, unknown> }): PushPayload {
  const p = job.payload as unknown as PushPayload;
  return {
    store_id: Number(p.store_id),
    subject_type: p.subject_type,
    subject_id: Number(p.subject_id),
    movement_ids: (p.movement_ids ?? []).map(Number),
  };
}

/** Pushes the job's unacknowledged movements, acknowledging each one as the platform accepts it. */
export async function pushMovements(ctx: AppContext, payload: PushPayload): Promise<void> {
  const storeId = payload.store_id;
  if (payload.movement_ids.length === 0) return;
  const movements = await ctx.db
    .selectFrom("stock_movements")
    .selectAll()
    .where("store_id", "=", storeId)
    .where("id", "in", payload.movement_ids)
    .where("pushed_at", "is", null)
    .orderBy("id")
    .execute();
  if (movements.length === 0) return;
  const connector = await connectorForStore(ctx, ctx.db, storeId);
  let costsPushed = false;
  for (const movement of movements) {
    const result = await connector.adjustInventory(adjustmentFor(movement));
    await pushTestHooks.afterPush?.(movement.id);
    await ctx.db.transaction().execute(async (trx) => {
      const acked = await trx
        .updateTable("stock_movements")
        .set({ pushed_at: ctx.clock.now() })
        .where("id", "=", movement.id)
        .where("pushed_at", "is", null)
        .returning("id")
        .executeTakeFirst();
      if (!acked) return;
      if (movement.unit_cost !== null && !costsPushed) {
        // The item's new unit cost comes back into the mirror's variant through the sync.
        costsPushed = true;
        await requestCatalogSync(ctx, trx, storeId);
      }
      await refreshLevels(
        ctx,
        trx,
        storeId,
        [{ inventoryItemId: movement.inventory_item_id, locationId: movement.location_id }],
        result.levels,
      );
    });
  }
}

async function writeSyncState(
  ctx: AppContext,
  db: Db,
  subject: { storeId: number; subjectType: SyncSubjectType; subjectId: number },
  state: "pending" | "synced" | "failed",
  error: string | null,
): Promise<void> {
  const now = ctx.clock.now();
  await db
    .insertInto("platform_sync_states")
    .values({
      store_id: subject.storeId,
      subject_type: subject.subjectType,
      subject_id: subject.subjectId,
      state,
      attempted_at: now,
      error,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc
        .columns(["store_id", "subject_type", "subject_id"])
        .doUpdateSet({ state, attempted_at: now, error, updated_at: now }),
    )
    .execute();
}

/** A failed push job still holding movements of this record (its error), if any. */
async function failedPushOf(
  ctx: AppContext,
  storeId: number,
  subjectType: string,
  subjectId: number,
): Promise<{ id: number; last_error: string | null } | undefined> {
  return ctx.db
    .selectFrom("jobs")
    .select(["id", "last_error"])
    .where("type", "=", PUSH_JOB)
    .where("state", "=", "failed")
    .where("store_id", "=", storeId)
    .where(sql<boolean>`payload->>'subject_type' = ${subjectType}`)
    .where(sql<boolean>`(payload->>'subject_id')::int = ${subjectId}`)
    .orderBy("id", "desc")
    .executeTakeFirst();
}

/** After a successful job: synced when nothing of the record is left unacknowledged. */
async function settle(ctx: AppContext, payload: PushPayload): Promise<void> {
  const subject = {
    storeId: payload.store_id,
    subjectType: payload.subject_type,
    subjectId: payload.subject_id,
  };
  const left = await ctx.db
    .selectFrom("stock_movements")
    .select("id")
    .where("store_id", "=", payload.store_id)
    .where("subject_type", "=", payload.subject_type)
    .where("subject_id", "=", payload.subject_id)
    .where("pushed_at", "is", null)
    .limit(1)
    .executeTakeFirst();
  if (!left) return writeSyncState(ctx, ctx.db, subject, "synced", null);
  const failed = await failedPushOf(ctx, payload.store_id, payload.subject_type, payload.subject_id);
  if (failed) return writeSyncState(ctx, ctx.db, subject, "failed", failed.last_error);
  return writeSyncState(ctx, ctx.db, subject, "pending", null);
}

export const pushJobHandler: JobHandler = {
  type: PUSH_JOB,
  retryDelayMs(attempts) {
    return PUSH_RETRY_DELAYS_MS[attempts - 1] ?? null;
  },
  async run(ctx, job) {
    const payload = payloadOf(job);
    try {
      await pushMovements(ctx, payload);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof PlatformPermanentError) throw new PermanentJobError(message);
      // Transient: the record stays pending until the next attempt (or the last one fails it).
      if (job.attempts < job.max_attempts)
        await writeSyncState(
          ctx,
          ctx.db,
          { storeId: payload.store_id, subjectType: payload.subject_type, subjectId: payload.subject_id },
          "pending",
          message,
        );
      throw error;
    }
    await settle(ctx, payload);
  },
  async onFinalFailure(ctx, job, error) {
    const payload = payloadOf(job);
    const subject = {
      storeId: payload.store_id,
      subjectType: payload.subject_type,
      subjectId: payload.subject_id,
    };
    await ctx.db.transaction().execute(async (trx) => {
      await writeSyncState(ctx, trx, subject, "failed", error);
      // e.g. the purchase order history row `platform_sync_failed`.
      for (const module of ctx.modules)
        if (module.onPlatformSyncFailed)
          await module.onPlatformSyncFailed(ctx, trx, { ...subject, error, jobId: job.id });
    });
  },
};
