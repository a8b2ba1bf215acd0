import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Runtime } from "../../src/runtime.ts";
import {
  EMBEDDED_ADMIN as ADMIN,
  embeddedRuntimeWithStore,
  reltuplesOf,
} from "../helpers/embedded-runtime.ts";

/**
 * PGlite has no autoanalyze: a bulk import's tables get statistics as its sync ends (db/maintenance.ts),
 * not at the periodic task's next tick; a small sync leaves them to that task.
 */
describe("statistics right after a bulk catalog import (embedded database)", () => {
  let runtime: Runtime;
  let storeId: number;
  const reltuples = (table: string) => reltuplesOf(runtime, table);
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
    ({ runtime, storeId } = await embeddedRuntimeWithStore("Imported", "empty"));
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
