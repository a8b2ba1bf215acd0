import type { AppContext } from "../context.ts";
import type { Db } from "../db/database.ts";
import { hideImportedLocation } from "../domain/catalog/index.ts";
import { syncCatalog } from "./catalog-sync.ts";
import { platformDriver } from "./registry.ts";

/**
 * A new store's platform, in the store-creation transaction: a platform the service keeps itself (the
 * simulator) is seeded and imported into the mirror at once, so the catalog is readable as soon as the
 * store exists; the locations the seed starts hidden are hidden in the store's settings.
 */
export async function setUpStorePlatform(
  ctx: AppContext,
  trx: Db,
  store: { id: number; currency: string },
  seed: "demo" | "empty",
): Promise<void> {
  const row = await trx.selectFrom("stores").select("platform").where("id", "=", store.id).executeTakeFirst();
  const driver = platformDriver(row?.platform ?? "simulated");
  if (!driver?.seedStore) return;
  const { hiddenLocationIds } = await driver.seedStore(ctx, trx, store, seed);
  await syncCatalog(ctx, store.id, { trx });
  for (const id of hiddenLocationIds) await hideImportedLocation(trx, store.id, id);
}
