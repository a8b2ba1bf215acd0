import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { seedDemoPlatform, seedEmptyPlatform } from "./demo.ts";
import { createLargeSimCatalog } from "./large-catalog.ts";
import { ensureSimStore } from "./shop.ts";

/**
 * A new store on the simulated platform: its shop is seeded (`demo` catalog, or one location for
 * `empty`); the store's creation imports it into the mirror in the same transaction, so the catalog
 * is readable as soon as the store exists. In the demo, the store hides its third location in its
 * settings.
 */
export async function seedSimulatedStore(
  ctx: AppContext,
  trx: Db,
  store: { id: number; currency: string },
  seed: "demo" | "empty",
): Promise<{ hiddenLocationIds: number[] }> {
  await ensureSimStore(trx, store.id);
  if (seed === "empty") {
    await seedEmptyPlatform(trx, ctx.clock, store.id);
    return { hiddenLocationIds: [] };
  }
  const { hiddenLocationId } = await seedDemoPlatform(trx, ctx.clock, store.id, store.currency);
  return { hiddenLocationIds: [hiddenLocationId] };
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
