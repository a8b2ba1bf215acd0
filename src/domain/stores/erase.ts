import type { Db } from "../../db/database.ts";
import { eraseStoreMovements } from "../stock/index.ts";
import { authRowsWritten } from "./auth-rows.ts";

/**
 * Erases a store and everything it holds (Shopify's shop/redact: the merchant's data must go), in the
 * caller's transaction. Nearly every table with store rows reaches `stores` through a cascading
 * reference (migrations 001–013), so deleting the row erases them; the stock ledger's movements keep
 * none (migration 036) and are deleted after it, in this order (docs/decisions.md, "Store erasure").
 * Answers whether it existed. The jobs table keeps no reference; the caller forgets the store's jobs
 * itself.
 */
export async function eraseStore(trx: Db, storeId: number): Promise<boolean> {
  try {
    const deleted = await trx.deleteFrom("stores").where("id", "=", storeId).executeTakeFirst();
    await eraseStoreMovements(trx, storeId);
    return deleted.numDeletedRows > 0n;
  } finally {
    // Its keys went with it (cascade). Counted inside the caller's transaction: on the embedded
    // database that transaction holds the one connection until it ends, so a lookup after this
    // count reads the rows as the transaction leaves them.
    authRowsWritten();
  }
}
