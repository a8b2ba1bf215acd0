import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/database.ts";
import { ean13 } from "./barcode.ts";
import { createSimLocations, createSimProducts, type NewSimProduct } from "./catalog.ts";

/**
 * A large synthetic catalog for benchmarks and the CLI: `products` products of `variantsPerProduct`
 * variants each, stocked at every active location (locations are added until there are at least 3).
 */
export async function createLargeSimCatalog(
  db: Db,
  clock: Clock,
  storeId: number,
  currency: string,
  options: { products: number; variantsPerProduct: number; chunkProducts?: number },
): Promise<{ products: number; variants: number }> {
  const existing = await db
    .selectFrom("sim_locations")
    .select("id")
    .where("store_id", "=", storeId)
    .where("active", "=", true)
    .execute();
  const names = ["Warehouse A", "Warehouse B", "Shop C"];
  if (existing.length < 3)
    await createSimLocations(
      db,
      clock,
      storeId,
      names.slice(existing.length).map((name) => ({ name })),
    );
  const chunk = options.chunkProducts ?? 1000;
  for (let start = 0; start < options.products; start += chunk) {
    const batch: NewSimProduct[] = [];
    for (let p = start; p < Math.min(options.products, start + chunk); p++) {
      const variants = [];
      for (let v = 0; v < options.variantsPerProduct; v++) {
        const n = p * options.variantsPerProduct + v;
        variants.push({
          title: `Option ${v + 1}`,
          sku: `BULK-${String(p).padStart(6, "0")}-${v + 1}`,
          barcode: ean13(`29${String(n).padStart(10, "0")}`),
          price: `${10 + (n % 90)}.00`,
          unitCost: `${4 + (n % 40)}.25`,
          weightGrams: 100 + (n % 900),
        });
      }
      batch.push({
        title: `Bulk Product ${p + 1}`,
        vendor: `Vendor ${(p % 25) + 1}`,
        productType: `Type ${(p % 12) + 1}`,
        tags: ["bulk"],
        options: [
          {
            name: "Option",
            position: 1,
            values: variants.map((v) => v.title),
          },
        ],
        variants,
      });
    }
    await createSimProducts(db, clock, storeId, currency, batch, (c) => ({
      available: ((c.productIndex * 3 + c.variantIndex * 7 + c.locationIndex) % 50) + 1,
    }));
  }
  return { products: options.products, variants: options.products * options.variantsPerProduct };
}
