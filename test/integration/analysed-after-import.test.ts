import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { loadConfig } from "../../src/config.ts";
import { createRuntime, type Runtime } from "../../src/runtime.ts";

const ADMIN = { authorization: "Bearer test-admin-token-0123456789abcdef" };

/**
 * PGlite has no autoanalyze: a bulk import's tables get statistics as its sync ends (db/maintenance.ts),
 * not at the periodic task's next tick; a small sync leaves them to that task.
 */
describe("statistics right after a bulk catalog import (embedded database)", () => {
  let runtime: Runtime;
  let storeId: number;
  const reltuples = async (table: string) =>
    Number(
      (
        await sql<{ n: number }>`select reltuples::float8 as n from pg_class where relname = ${table}
          and relnamespace = current_schema()::regnamespace`.execute(runtime.ctx.db)
      ).rows[0].n,
    );
  const generate = async (products: number, variantsPerProduct: number) => {
    const res = await runtime.app.inject({
      method: "POST",
      url: `/admin/stores/${storeId}/platform/catalog/generate`,
      headers: ADMIN,
      payload: { products, variants_per_product: variantsPerProduct },
    });
    assert.equal(res.statusCode, 201);
    assert.deepEqual(res.json(), { data: { products, variants: products * variantsPerProduct } });
    await runtime.worker.drain();
  };

  before(async () => {
    const config = loadConfig({
      DATA_DIR: ":memory:",
      DATABASE_URL: "",
      ADMIN_TOKEN: "test-admin-token-0123456789abcdef",
      BOOTSTRAP: "none",
      WORKERS: "off",
      LOG_LEVEL: "silent",
    });
    runtime = await createRuntime(config, { logger: false });
    const created = await runtime.app.inject({
      method: "POST",
      url: "/admin/stores",
      headers: ADMIN,
      payload: { name: "Imported", currency: "USD", timezone: "UTC", seed: "empty" },
    });
    assert.equal(created.statusCode, 201);
    storeId = created.json().data.id;
    await runtime.worker.drain();
  });
  after(() => runtime.close());

  test("a sync of 160 rows leaves the statistics to the periodic task", async () => {
    await generate(10, 4); // 10 products, 40 variants, 120 levels
    assert.equal(await reltuples("variants"), -1, "never analysed");
    assert.equal(await reltuples("inventory_levels"), -1, "never analysed");
  });

  test("an import of 1,000 variants analyses its tables before it ends", async () => {
    await generate(20, 50);
    assert.equal(await reltuples("variants"), 1040);
    assert.equal(await reltuples("inventory_levels"), 3120);
  });
});
