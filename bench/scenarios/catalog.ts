import type { Db } from "../../src/db/database.ts";
import { catalogFixture } from "../fixtures.ts";
import type { Bench } from "../lib/context.ts";
import type { LoadRequest } from "../lib/load-types.ts";
import { output, type Scenario, target } from "./scenario.ts";

/** Mirror import of 10,000 variants at 3 locations, timed end to end (issue 3). */
export const catalogImport: Scenario = {
  name: "catalog-import",
  title: "catalog import of 10,000 variants (time to mirror)",
  issue: 3,
  requires: ["GET /v2/variants", "GET /v2/inventory_levels"],
  async run(b) {
    const peakBefore = b.service.resetPeak();
    const catalog = await catalogFixture(b);
    const peak = b.service.peakRss();
    const full = catalog.importedVariants === 10_000;
    return output({
      rows: [],
      figures: {
        variants: catalog.importedVariants,
        "mirror import s": Number(catalog.importSeconds.toFixed(2)),
        "platform writes s": Number(catalog.platformSeconds.toFixed(2)),
        "total s": Number(catalog.totalSeconds.toFixed(2)),
        "variants/s": Math.round(catalog.importedVariants / catalog.importSeconds),
        "peak RSS MB": peak === null || !peakBefore ? null : Math.round(peak / 1024 / 1024),
      },
      targets: [
        target(
          3,
          `import of ${catalog.importedVariants.toLocaleString("en")} variants, 3 locations < 30 s (PGlite${full ? "" : "; quick mode, target is for 10,000"})`,
          catalog.importSeconds,
          "s",
          b.kind === "pglite" && full ? catalog.importSeconds < 30 : null,
        ),
      ],
      notes: [
        catalog.method === "generate"
          ? "platform side written by POST /admin/stores/{id}/platform/catalog/generate (200 products × 50 variants, levels at 3 locations); the import is timed from its answer (which queues the sync) until the last item's levels read back through /v2"
          : "platform side written by POST /admin/stores/{id}/platform/products (1,000 variants a request); the sync overlaps the writes, so the import is timed from the first write until the last item's levels read back through /v2",
      ],
    });
  },
};

/** Every page of 250 variants in turn, by their cursors. */
async function pagePaths(b: Bench): Promise<string[]> {
  const paths = ["/v2/variants?limit=250"];
  let cursor: string | null = null;
  for (;;) {
    const page: { next_cursor: string | null } = await b.api.get(
      `/v2/variants?limit=250${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    if (!page.next_cursor) return paths;
    cursor = page.next_cursor;
    paths.push(`/v2/variants?limit=250&cursor=${encodeURIComponent(cursor)}`);
  }
}

export const variantsPage: Scenario = {
  name: "variants-page",
  title: "GET /v2/variants, pages of 250 (10,000-variant catalog)",
  issue: 3,
  requires: ["GET /v2/variants"],
  async run(b) {
    await catalogFixture(b);
    const requests: LoadRequest[] = (await pagePaths(b)).map((path) => ({ method: "GET", path }));
    b.plan("variants-page", "Query plan of GET /v2/variants?limit=250 (first page)", (db) =>
      db
        .selectFrom("variants as v")
        .selectAll("v")
        .where("v.store_id", "=", b.storeId)
        .orderBy("v.updated_at", "asc")
        .orderBy("v.id", "asc")
        .limit(251),
    );
    const c1 = await b.load("c=1", { connections: 1, requests });
    const c32 = await b.load("c=32", { connections: 32, requests });
    return output({
      rows: [c1, c32],
      figures: { pages: requests.length },
      targets: [
        target(
          3,
          "page of 250 variants p50 < 15 ms (PostgreSQL)",
          c1.p50,
          "ms",
          b.kind === "postgres" ? c1.p50 < 15 : null,
        ),
      ],
      notes: ["every page of the catalog in turn, each by its cursor"],
    });
  },
};

/** The query GET /v2/variants?sku= runs (src/http/routes/catalog.ts through keysetPage, limit 50 + 1). */
function variantsBySkuQuery(db: Db, storeId: number, sku: string) {
  return db
    .selectFrom("variants as v")
    .selectAll("v")
    .where("v.store_id", "=", storeId)
    .where("v.sku", "=", sku)
    .orderBy("v.updated_at", "asc")
    .orderBy("v.id", "asc")
    .limit(51);
}

export const variantsBySku: Scenario = {
  name: "variants-sku",
  title: "GET /v2/variants?sku= (exact SKU) and its query plan",
  issue: 3,
  requires: ["GET /v2/variants"],
  async run(b) {
    const catalog = await catalogFixture(b);
    const skus = catalog.bulk.filter((_, i) => i % 7 === 0).map((v) => v.sku as string);
    const requests: LoadRequest[] = skus.map((sku) => ({
      method: "GET",
      path: `/v2/variants?sku=${encodeURIComponent(sku)}`,
    }));
    const c1 = await b.load("c=1", { connections: 1, requests });
    const c32 = await b.load("c=32", { connections: 32, requests });
    const sku = skus[Math.floor(skus.length / 2)];
    b.plan(
      "variants-sku",
      "Query plan of GET /v2/variants?sku=",
      (db) => variantsBySkuQuery(db, b.storeId, sku),
      (plan) => {
        const usesIndex = /Index|Bitmap/.test(plan) && /variants_sku/.test(plan);
        return target(
          3,
          "GET /variants?sku= answers from an index (variants_sku)",
          usesIndex ? 1 : 0,
          "bool",
          usesIndex,
        );
      },
    );
    return output({ rows: [c1, c32], figures: { skus: skus.length } });
  },
};
