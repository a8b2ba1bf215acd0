import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { hideImportedLocation } from "../../domain/catalog/index.ts";
import { syncCatalog } from "../catalog-sync.ts";
import { createLargeSimCatalog, seedDemoPlatform, seedEmptyPlatform } from "./demo.ts";
import { ensureSimStore } from "./platform.ts";

/**
 * A new store on the simulated platform: its shop is seeded (`demo` catalog, or one location for
 * `empty`) and imported into the mirror in the store-creation transaction, so the catalog is readable
 * as soon as the store exists. In the demo, the store hides its third location in its settings.
 */
export async function seedSimulatedStore(
  ctx: AppContext,
  trx: Db,
  store: { id: number; currency: string },
  seed: "demo" | "empty",
): Promise<void> {
  await ensureSimStore(trx, store.id);
  let hidden: number | null = null;
  if (seed === "demo") {
    hidden = (await seedDemoPlatform(trx, ctx.clock, store.id, store.currency)).hiddenLocationId;
  } else {
    await seedEmptyPlatform(trx, ctx.clock, store.id);
  }
  await syncCatalog(ctx, store.id, { trx });
  if (hidden !== null) await hideImportedLocation(trx, store.id, hidden);
}

/**
 * Bulk-creates a large simulated catalog for a store (benchmarks, the CLI): `products` products of
 * `variantsPerProduct` variants, stocked at every active location. The mirror picks it up on the next
 * sync (call `syncCatalog` to import it now).
 */
export async function seedSimulatedCatalog(
  ctx: AppContext,
  storeId: number,
  options: { products: number; variantsPerProduct: number },
): Promise<{ products: number; variants: number }> {
  const store = await ctx.db
    .selectFrom("stores")
    .select(["currency"])
    .where("id", "=", storeId)
    .executeTakeFirstOrThrow();
  await ensureSimStore(ctx.db, storeId);
  return createLargeSimCatalog(ctx.db, ctx.clock, storeId, store.currency, options);
}
