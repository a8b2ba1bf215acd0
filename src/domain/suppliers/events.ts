import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { emit } from "../../events/outbox.ts";
import { presentSupplier, type SupplierRow } from "./presenter.ts";

/** A supplier event carries the supplier as GET /suppliers/{id} then returns it. */
export async function emitSupplier(ctx: AppContext, trx: Db, name: string, row: SupplierRow): Promise<void> {
  await emit(ctx, trx, {
    storeId: row.store_id,
    name,
    subjectType: "supplier",
    subjectId: row.id,
    data: presentSupplier(row),
  });
}
