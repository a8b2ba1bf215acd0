/** An order in a currency that is no ISO 4217 code is refused on `currency`, whatever its lines are. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";

let t: TestApp;
let store: TestStore;

before(async () => {
  t = await startTestApp();
  store = await t.createStore({ seed: "demo" });
});
after(() => t.close());

test("an unknown currency with a line named by variant is 422 on currency, not a 500", async () => {
  const supplier = await store.api.post("/v2/suppliers", { name: "Currency Ltd" });
  const variant = (await store.api.get("/v2/variants?limit=1")).body.data[0];
  const res = await store.api.post("/v2/purchase_orders", {
    supplier_id: supplier.body.data.id,
    currency: "Ve-",
    lines: [{ variant_id: variant.id, quantity: 2 }],
  });
  assert.equal(res.status, 422);
  assert.deepEqual(res.body.error.details, [
    { field: "currency", code: "invalid_value", message: "is not a known ISO 4217 currency code" },
  ]);
  assert.equal((await store.api.get("/v2/purchase_orders")).body.data.length, 0);
});
