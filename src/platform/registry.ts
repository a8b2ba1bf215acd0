import type { AppContext } from "../context.ts";
import type { Db } from "../db/database.ts";
import type { PeriodicTask } from "../jobs/worker.ts";
import { type PlatformConnector, PlatformPermanentError } from "./connector.ts";
import type { PlatformDriver } from "./driver.ts";
import { simulatedPlatform } from "./simulated/index.ts";

/** Every platform a store can be on. */
export const platformDrivers: readonly PlatformDriver[] = [simulatedPlatform];

/** The driver of `platform` (a `stores.platform` value), if the service knows it. */
export function platformDriver(platform: string): PlatformDriver | undefined {
  return platformDrivers.find((d) => d.name === platform);
}

/** The periodic tasks every platform brings (e.g. the simulator's key retention). */
export function platformPeriodicTasks(): PeriodicTask[] {
  return platformDrivers.flatMap((d) => d.periodic ?? []);
}

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
  const driver = platformDriver(platform);
  if (!driver) throw new PlatformPermanentError(`no connector for platform ${platform}`);
  return driver.connect(ctx, db, storeId);
}
