import type { Db } from "../../db/database.ts";
import { authRowsWritten } from "./auth-rows.ts";

/**
 * Erases a store and everything it holds (Shopify's shop/redact: the merchant's data must go). Every
 * table with store rows reaches `stores` through a cascading reference (migrations 001–013), so
 * deleting the row is the whole erasure, in the caller's transaction. Answers whether it existed.
 * The jobs table keeps no reference; the caller forgets the store's jobs itself.
 */
export async function eraseStore(trx: Db, storeId: number): Promise<boolean> {
  try {
    const deleted = await trx.deleteFrom("stores").where("id", "=", storeId).executeTakeFirst();
    return deleted.numDeletedRows > 0n;
  } finally {
    // Its keys went with it (cascade). Counted inside the caller's transaction: on the embedded
    // database that transaction holds the one connection until it ends, so a lookup after this
    // count reads the rows as the transaction leaves them.
    authRowsWritten();
  }
}
