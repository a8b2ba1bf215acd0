import { sql } from "kysely";
import type { AppContext } from "../../context.ts";
import { insertRows } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";
import { addMovementsToLevels } from "./movement-levels.ts";

/** The records that move stock. */
export type SyncSubjectType = "purchase_order" | "receipt" | "stock_adjustment";

export interface MovementInput {
  inventoryItemId: number;
  locationId: number;
  /** Signed change of `available` (and of `on_hand` unless onHandDelta is given). */
  availableDelta?: number;
  onHandDelta?: number;
  incomingDelta?: number;
  /** Item unit cost to set on the platform (landed cost of a receipt), in `unitCostCurrency`. */
  unitCost?: string | null;
  unitCostCurrency?: string | null;
  reason: string;
}

/** The job that tells the platform about recorded movements (its handler: platform/push.ts). */
export const PUSH_JOB = "platform.push";
/** How often a push is tried before its record's platform_sync stays failed. */
export const PUSH_MAX_ATTEMPTS = 6;

/**
 * The one place stock moves. Writes the movements (a signed ledger, never edited), marks the owning
 * record's platform_sync pending, and enqueues the push, all in the caller's transaction: the record is
 * final at once and the platform is told afterwards. The push job (platform/push.ts) sends them in
 * as few ledger documents as it can, each keyed by its movement ids, so a retried push never moves
 * platform stock twice.
 * Movements with every delta zero and no unit cost are dropped.
 *
 * The mirror's inventory levels of the moved items change in the same transaction (a level is the
 * platform's last report plus the movements it has not acknowledged), so GET /inventory_levels and
 * the next quantity_before see the movement at once, and item.* alert events fire here.
 */
export async function recordStockMovements(
  ctx: AppContext,
  trx: Db,
  input: {
    storeId: number;
    subjectType: SyncSubjectType;
    subjectId: number;
    reference: string;
    movements: MovementInput[];
  },
): Promise<number[]> {
  const now = ctx.clock.now();
  const rows = input.movements
    .map((m) => ({
      store_id: input.storeId,
      subject_type: input.subjectType,
      subject_id: input.subjectId,
      inventory_item_id: m.inventoryItemId,
      location_id: m.locationId,
      available_delta: m.availableDelta ?? 0,
      on_hand_delta: m.onHandDelta ?? m.availableDelta ?? 0,
      incoming_delta: m.incomingDelta ?? 0,
      unit_cost: m.unitCost ?? null,
      unit_cost_currency: m.unitCost ? (m.unitCostCurrency ?? null) : null,
      reason: m.reason,
      reference: input.reference,
      created_at: now,
    }))
    .filter(
      (r) =>
        r.available_delta !== 0 || r.on_hand_delta !== 0 || r.incoming_delta !== 0 || r.unit_cost !== null,
    );
  if (rows.length === 0) return [];
  const { rows: inserted } = await insertRows(
    "stock_movements",
    rows,
    [
      ["store_id", "int", (r) => r.store_id],
      ["subject_type", "text", (r) => r.subject_type],
      ["subject_id", "int", (r) => r.subject_id],
      ["inventory_item_id", "bigint", (r) => r.inventory_item_id],
      ["location_id", "bigint", (r) => r.location_id],
      ["available_delta", "int", (r) => r.available_delta],
      ["on_hand_delta", "int", (r) => r.on_hand_delta],
      ["incoming_delta", "int", (r) => r.incoming_delta],
      ["unit_cost", "numeric", (r) => r.unit_cost],
      ["unit_cost_currency", "text", (r) => r.unit_cost_currency],
      ["reason", "text", (r) => r.reason],
      ["reference", "text", (r) => r.reference],
      ["created_at", "timestamptz", (r) => r.created_at],
    ],
    sql<{ id: number }>`returning id`,
  ).execute(trx);
  await trx
    .insertInto("platform_sync_states")
    .values({
      store_id: input.storeId,
      subject_type: input.subjectType,
      subject_id: input.subjectId,
      state: "pending",
      attempted_at: null,
      error: null,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc
        .columns(["store_id", "subject_type", "subject_id"])
        .doUpdateSet({ state: "pending", error: null, updated_at: now }),
    )
    .execute();
  await ctx.jobs.enqueue(
    trx,
    PUSH_JOB,
    {
      store_id: input.storeId,
      subject_type: input.subjectType,
      subject_id: input.subjectId,
      movement_ids: inserted.map((r) => r.id),
      grouped: true,
    },
    { storeId: input.storeId, maxAttempts: PUSH_MAX_ATTEMPTS },
  );
  await addMovementsToLevels(
    ctx,
    trx,
    input.storeId,
    rows.map((r) => ({
      inventoryItemId: r.inventory_item_id,
      locationId: r.location_id,
      available: r.available_delta,
      onHand: r.on_hand_delta,
      incoming: r.incoming_delta,
    })),
  );
  return inserted.map((r) => r.id);
}
