/**
 * Data several scenarios share, built once per database run through the service's own API: the
 * catalog (simulated platform products imported into the mirror by the service's sync worker) and
 * suppliers. Each is made on first use, so `--only` any scenario still gets what it needs.
 */
import type { Bench } from "./lib/context.ts";
import { listAll, mapLimit } from "./lib/http.ts";

export interface Variant {
  id: number;
  inventory_item_id: number;
  product_id: number;
  sku: string | null;
}

export interface Catalog {
  variants: Variant[];
  /** Variants created for the benchmark (the import), in creation order. */
  bulk: Variant[];
  locationIds: number[];
  importedVariants: number;
  /** How the platform side was written: `generate` (bulk admin route) or `products` (admin products). */
  method: string;
  /**
   * The mirror import: from the platform holding the catalog (generate) or from the first platform
   * write (products, where the sync overlaps the writes) to the mirror holding every variant and level.
   */
  importSeconds: number;
  /** From the first platform write to the mirror holding everything. */
  totalSeconds: number;
  /** Of which: writing the products on the simulated platform (admin API). */
  platformSeconds: number;
}

const VARIANTS_PER_PRODUCT = 100;
const PRODUCTS_PER_POST = 10;

async function waitFor(what: string, boundMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: not done within ${boundMs / 1000} s`);
}

/**
 * 10,000 variants (1,000 in quick mode) on the store's simulated platform, imported into the mirror by
 * the service's own sync worker. The platform side is written by the admin API's bulk generator
 * (`POST /admin/stores/{id}/platform/catalog/generate`: 200 products of 50 variants, stocked at every
 * active location: the demo shop has 3, one hidden from the API), which then asks for a sync. Where
 * that route is missing, `POST …/platform/products` in requests of 1,000 variants does the same (the
 * sync then overlaps the writes). The import is timed until the last item's levels read back through
 * /v2, then checked by counting every variant.
 */
export function catalogFixture(b: Bench): Promise<Catalog> {
  return b.fixture("catalog", async () => {
    const total = b.quick ? 1000 : 10_000;
    const locations = await listAll<{ id: number }>(b.api, "/v2/locations");
    const before = (await listAll<Variant>(b.api, "/v2/variants")).length;
    b.log(`   importing ${total} variants (${locations.length} of 3 locations visible)`);
    const t0 = Date.now();
    let lastSku: string;
    let prefix: string;
    let method: string;
    const generated = await b.admin.call("POST", `/admin/stores/${b.storeId}/platform/catalog/generate`, {
      products: total / 50,
      variants_per_product: 50,
    });
    if (generated.status === 201) {
      method = "generate";
      prefix = "BULK-";
      lastSku = `BULK-${String(total / 50 - 1).padStart(6, "0")}-50`;
    } else if (generated.status === 404) {
      method = "products";
      const tag = Date.now().toString(36).toUpperCase();
      prefix = `B${tag}-`;
      const products = Array.from({ length: total / VARIANTS_PER_PRODUCT }, (_, p) => ({
        title: `Bench Product ${p + 1}`,
        vendor: `Vendor ${(p % 20) + 1}`,
        product_type: `Type ${(p % 8) + 1}`,
        tags: ["bench"],
        variants: Array.from({ length: VARIANTS_PER_PRODUCT }, (_, v) => ({
          title: `Size ${v + 1}`,
          sku: `${prefix}${String(p).padStart(4, "0")}-${String(v).padStart(3, "0")}`,
          barcode: `9${String(p * VARIANTS_PER_PRODUCT + v).padStart(12, "0")}`,
          price: 10 + ((p + v) % 90),
          unit_cost: 4 + ((p * 3 + v) % 40) + 0.25,
          weight_grams: 100 + ((p + v * 7) % 900),
        })),
      }));
      for (let i = 0; i < products.length; i += PRODUCTS_PER_POST) {
        await b.admin.post(`/admin/stores/${b.storeId}/platform/products`, {
          products: products.slice(i, i + PRODUCTS_PER_POST),
        });
      }
      const lastProduct = products[products.length - 1];
      lastSku = lastProduct.variants[lastProduct.variants.length - 1].sku;
    } else {
      throw new Error(`catalog generation answered ${generated.status}: ${JSON.stringify(generated.body)}`);
    }
    const tPlatform = Date.now();
    let item: number | null = null;
    await waitFor("the mirror import", 600_000, async () => {
      if (item === null) {
        const found = await b.api.get<{ data: Variant[] }>(`/v2/variants?sku=${encodeURIComponent(lastSku)}`);
        if (found.data.length === 0) return false;
        item = found.data[0].inventory_item_id;
      }
      const levels = await b.api.get<{ data: unknown[] }>(`/v2/inventory_levels?inventory_item_id=${item}`);
      return levels.data.length >= locations.length;
    });
    let tMirror = Date.now();
    let variants = await listAll<Variant>(b.api, "/v2/variants");
    while (variants.length < before + total) {
      if (Date.now() - t0 > 600_000)
        throw new Error(`the mirror holds ${variants.length} variants, expected ${before + total}`);
      await new Promise((r) => setTimeout(r, 1000));
      variants = await listAll<Variant>(b.api, "/v2/variants");
      tMirror = Date.now();
    }
    const bulk = variants.filter((v) => v.sku?.startsWith(prefix));
    bulk.sort((x, y) => (x.sku ?? "").localeCompare(y.sku ?? ""));
    const seconds = (tMirror - (method === "generate" ? tPlatform : t0)) / 1000;
    b.log(`   mirror complete: ${seconds.toFixed(1)} s (${method})`);
    return {
      variants,
      bulk,
      locationIds: locations.map((l) => l.id),
      importedVariants: total,
      method,
      importSeconds: seconds,
      totalSeconds: (tMirror - t0) / 1000,
      platformSeconds: (tPlatform - t0) / 1000,
    };
  });
}

export interface Suppliers {
  ids: number[];
}

/** Suppliers created through POST /v2/suppliers, 8 at a time (1,000; 250 in quick mode). */
export function suppliersFixture(b: Bench): Promise<Suppliers> {
  return b.fixture("suppliers", async () => {
    const count = b.quick ? 250 : 1000;
    b.log(`   creating ${count} suppliers`);
    const ids = await mapLimit(Array.from({ length: count }), 8, async (_, i) => {
      const made = await b.api.post<{ data: { id: number } }>("/v2/suppliers", {
        name: `Bench Supplier ${i + 1}`,
        company_name: `Bench Supplies ${i + 1} Ltd`,
        email: `orders${i + 1}@supplier.example`,
        email_cc: [`accounts${i + 1}@supplier.example`],
        phone: "+44 20 7946 0000",
        currency: "USD",
        lead_time_days: 7 + (i % 21),
        payment_terms: "Net 30",
        address_line1: `${i + 1} Warehouse Road`,
        city: "Leeds",
        country: "GB",
        match_vendors: [`Vendor ${(i % 20) + 1}`],
        min_order_value: 100,
      });
      return made.data.id;
    });
    return { ids };
  });
}
