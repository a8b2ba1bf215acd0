import { catalogFixture } from "../fixtures.ts";
import { output, type Scenario, target } from "./scenario.ts";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Initial import of a Shopify shop of 10,000 variants at 3 locations from the stand-in (issue 19,
 * "Performance"): attach by token, then the bulk operation, its JSONL and the mirror, timed from the
 * attach request until the store says `connected`; reported beside the simulated platform's import.
 */
export const shopifyImport: Scenario = {
  name: "shopify-import",
  title: "Shopify initial import of 10,000 variants × 3 locations (stand-in)",
  issue: 19,
  requires: ["GET /v2/variants"],
  async run(b) {
    const standin = b.shopify;
    if (!standin) throw new Error("no Shopify stand-in in this run");
    const products = b.quick ? 20 : 200;
    const domain = `bench-${b.kind}-${Date.now()}.myshopify.com`;
    const { shop, accessToken } = standin.addShop(domain, { currency: "USD" });
    shop.seed({ products, variantsPerProduct: 50, locations: 3 });
    const variants = products * 50;
    // The simulated import, for the comparison (a fixture: measured once per run).
    const simulated = await catalogFixture(b);
    const started = Date.now();
    const created = await b.admin.post<{ data: { id: number } }>("/admin/stores", {
      platform: "shopify",
      shopify: { shop: domain, access_token: accessToken },
    });
    let status = "importing";
    let importError: string | null = null;
    while (status !== "connected") {
      await sleep(250);
      const store = await b.admin.get<{ data: { shopify: { status: string; import_error: string | null } } }>(
        `/admin/stores/${created.data.id}`,
      );
      status = store.data.shopify.status;
      importError = store.data.shopify.import_error;
      if (Date.now() - started > 600_000) throw new Error(`import not done in 10 minutes (${importError})`);
    }
    const seconds = (Date.now() - started) / 1000;
    const full = variants === 10_000;
    return output({
      rows: [],
      figures: {
        variants,
        levels: variants * 3,
        "Shopify import s": Number(seconds.toFixed(2)),
        "variants/s": Math.round(variants / seconds),
        "simulated import s (same run)": Number(simulated.importSeconds.toFixed(2)),
        "ratio to simulated": Number((seconds / simulated.importSeconds).toFixed(2)),
      },
      targets: [
        target(
          19,
          `Shopify import of ${variants.toLocaleString("en")} variants × 3 locations < 60 s (PGlite${full ? "" : "; quick mode, target is for 10,000"})`,
          seconds,
          "s",
          b.kind === "pglite" && full ? seconds < 60 : null,
        ),
      ],
      notes: [
        "timed from POST /admin/stores (token checked, store and shop written, subscriptions and import queued) until GET /admin/stores/{id} shows shopify.status connected (the import's last batch applied); the stand-in runs in the bench process and validates every document against the 2026-10 schema",
      ],
    });
  },
};
