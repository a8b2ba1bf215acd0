/** The order history: who did what to an order, one row per change (GET …/history lists them). */
import type { RawBuilder } from "kysely";
import { insertRows } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";

/** Every history row type (the API's list of them is this one). */
export const HISTORY_TYPES = [
  "created",
  "updated",
  "lines_added",
  "line_cancelled",
  "ordered",
  "sent",
  "in_transit",
  "receipt_recorded",
  "receipt_voided",
  "received",
  "closed",
  "reopened",
  "archived",
  "unarchived",
  "payment_added",
  "payment_deleted",
  "marked_paid",
  "marked_unpaid",
  "duplicated",
  "platform_sync_failed",
  // Additive: the emailed order could not be delivered after its retries (documents module).
  "send_failed",
] as const;

export type HistoryType = (typeof HISTORY_TYPES)[number];

/** Who did it: an API key (by = its name, via = its prefix), or the service itself. */
export interface Actor {
  by: string;
  via: string | null;
}

export const SYSTEM_ACTOR: Actor = { by: "system", via: null };

/** The actor of a /v2 request's principal. */
export function actorOf(principal: { key: { name: string; prefix: string } } | null | undefined): Actor {
  return principal ? { by: principal.key.name, via: principal.key.prefix } : SYSTEM_ACTOR;
}

export interface HistoryInput {
  storeId: number;
  orderId: number;
  type: HistoryType;
  /** The request's principal (`principalOf(request)`); or give `by`/`via` directly; default system. */
  principal?: { key: { name: string; prefix: string } } | null;
  by?: string;
  via?: string | null;
  data?: Record<string, unknown>;
  at: Date;
}

/** Writes one history row in the caller's transaction. */
export async function addHistory(trx: Db, input: HistoryInput): Promise<void> {
  const actor =
    input.by !== undefined ? { by: input.by, via: input.via ?? null } : actorOf(input.principal ?? null);
  await trx
    .insertInto("purchase_order_history")
    .values({
      store_id: input.storeId,
      purchase_order_id: input.orderId,
      type: input.type,
      at: input.at,
      by_name: actor.by,
      via: actor.via,
      data: JSON.stringify(input.data ?? {}),
    })
    .execute();
}

/** History rows as one insert, for a caller's statement (a part of its WITH: a receipt's, receipts/). */
export function historyInsert(
  rows: readonly (Omit<HistoryInput, "principal" | "by"> & { by: string })[],
): RawBuilder<unknown> {
  return insertRows("purchase_order_history", rows, [
    ["store_id", "int", (r) => r.storeId],
    ["purchase_order_id", "int", (r) => r.orderId],
    ["type", "text", (r) => r.type],
    ["at", "timestamptz", (r) => r.at],
    ["by_name", "text", (r) => r.by],
    ["via", "text", (r) => r.via ?? null],
    ["data", "jsonb", (r) => r.data ?? {}],
  ]);
}
