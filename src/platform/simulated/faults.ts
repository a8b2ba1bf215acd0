import type { Db } from "../../db/database.ts";
import { inTransaction } from "../../db/transaction.ts";
import { ensureSimStore, type FaultMode } from "./shop.ts";

/**
 * Injected faults: the next pushes (or all of them, until cleared) fail as an outage (transient) or a
 * refusal (permanent), so the retry and failure paths can be exercised.
 */
export async function setSimFaults(
  db: Db,
  storeId: number,
  mode: FaultMode,
  count: number | null,
): Promise<{ mode: FaultMode; remaining: number | null }> {
  return inTransaction(db, async (trx) => {
    await ensureSimStore(trx, storeId);
    const row = await trx
      .updateTable("sim_stores")
      .set({ fault_mode: mode, fault_remaining: mode === "ok" ? null : count })
      .where("store_id", "=", storeId)
      .returning(["fault_mode", "fault_remaining"])
      .executeTakeFirstOrThrow();
    return { mode: row.fault_mode, remaining: row.fault_remaining };
  });
}

export async function getSimFaults(
  db: Db,
  storeId: number,
): Promise<{ mode: FaultMode; remaining: number | null }> {
  const row = await db
    .selectFrom("sim_stores")
    .select(["fault_mode", "fault_remaining"])
    .where("store_id", "=", storeId)
    .executeTakeFirst();
  return { mode: row?.fault_mode ?? "ok", remaining: row?.fault_remaining ?? null };
}

/**
 * Consumes one injected fault, if any is armed, in its own transaction (the push then fails). The
 * usual case, nothing armed, is one unlocked read.
 */
export async function takeFault(db: Db, storeId: number): Promise<FaultMode> {
  const armed = await db
    .selectFrom("sim_stores")
    .select("fault_mode")
    .where("store_id", "=", storeId)
    .executeTakeFirst();
  if (!armed || armed.fault_mode === "ok") return "ok";
  return inTransaction(db, async (trx) => {
    const row = await trx
      .selectFrom("sim_stores")
      .select(["fault_mode", "fault_remaining"])
      .where("store_id", "=", storeId)
      .forUpdate()
      .executeTakeFirst();
    if (!row || row.fault_mode === "ok") return "ok";
    if (row.fault_remaining === null) return row.fault_mode;
    if (row.fault_remaining <= 0) return "ok";
    const remaining = row.fault_remaining - 1;
    await trx
      .updateTable("sim_stores")
      .set(remaining === 0 ? { fault_mode: "ok", fault_remaining: null } : { fault_remaining: remaining })
      .where("store_id", "=", storeId)
      .execute();
    return row.fault_mode;
  });
}
