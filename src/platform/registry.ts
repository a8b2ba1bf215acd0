import type { AppContext } from "../context.ts";
import type { Db } from "../db/database.ts";
import type { JobHandler, PeriodicTask } from "../jobs/worker.ts";
import { type PlatformConnector, PlatformPermanentError } from "./connector.ts";
import type { PlatformDriver } from "./driver.ts";
import { shopifyPlatform } from "./shopify/index.ts";
import { simulatedPlatform } from "./simulated/index.ts";

/** Every platform a store can be on. */
export const platformDrivers: readonly PlatformDriver[] = [simulatedPlatform, shopifyPlatform];

/** The driver of `platform` (a `stores.platform` value), if the service knows it. */
export function platformDriver(platform: string): PlatformDriver | undefined {
  return platformDrivers.find((d) => d.name === platform);
}

/** The periodic tasks every platform brings (e.g. the simulator's key retention). */
export function platformPeriodicTasks(): PeriodicTask[] {
  return platformDrivers.flatMap((d) => d.periodic ?? []);
}

/** The job handlers every platform brings (e.g. Shopify's webhook subscriptions). */
export function platformJobHandlers(): JobHandler[] {
  return platformDrivers.flatMap((d) => d.jobs ?? []);
}

/**
 * The connector for a store's platform (`stores.platform`). `db` is the handle the simulated platform
 * works through (a transaction while a store is being created; the pool otherwise); Shopify's reads
 * the store's shop through it.
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

export async function connectorFor(
  ctx: AppContext,
  db: Db,
  storeId: number,
  platform: string,
): Promise<PlatformConnector> {
  const driver = platformDriver(platform);
  if (!driver) throw new PlatformPermanentError(`no connector for platform ${platform}`);
  return driver.connect(ctx, db, storeId);
}

/** The driver of a store's platform (undefined: no such store, or a platform the service does not know). */
export async function driverOfStore(db: Db, storeId: number): Promise<PlatformDriver | undefined> {
  const store = await db.selectFrom("stores").select("platform").where("id", "=", storeId).executeTakeFirst();
  return store ? platformDriver(store.platform) : undefined;
}
