import type { AppContext } from "../context.ts";
import type { Db } from "../db/database.ts";
import { type PlatformConnector, PlatformPermanentError } from "./connector.ts";
import { SimulatedConnector } from "./simulated/connector.ts";

/**
 * The connector for a store's platform (`stores.platform`). `db` is the handle the simulated platform
 * works through (a transaction while a store is being created; the pool otherwise). A real platform's
 * connector would take the store's credentials here instead.
 */
export async function connectorForStore(
  ctx: AppContext,
  db: Db,
  storeId: number,
): Promise<PlatformConnector> {
  const store = await db.selectFrom("stores").select("platform").where("id", "=", storeId).executeTakeFirst();
  if (!store) throw new PlatformPermanentError(`no store ${storeId}`);
  return connectorFor(ctx, db, storeId, store.platform);
}

export function connectorFor(ctx: AppContext, db: Db, storeId: number, platform: string): PlatformConnector {
  switch (platform) {
    case "simulated":
      return new SimulatedConnector(db, ctx.clock, storeId);
    default:
      throw new PlatformPermanentError(`no connector for platform ${platform}`);
  }
}
