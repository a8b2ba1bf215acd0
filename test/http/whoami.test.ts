import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";

describe("GET /v2/whoami", () => {
  let t: TestApp;
  let store: TestStore;
  before(async () => {
    t = await startTestApp();
    store = await t.createStore({ name: "Whoami Shop", currency: "EUR", timezone: "Europe/Berlin" });
  });
  after(() => t.close());

  test("returns the shop and key exactly as the contract shows, without a data wrapper", async () => {
    const res = await store.api.get("/v2/whoami");
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ["api_version", "key", "shop"]);
    assert.equal(res.body.api_version, "2");
    assert.equal(res.body.shop.id, store.id);
    assert.equal(res.body.shop.name, "Whoami Shop");
    assert.equal(res.body.shop.currency, "EUR");
    assert.equal(res.body.shop.timezone, "Europe/Berlin");
    assert.match(res.body.shop.domain, /\.shop\.test$/);
    assert.equal(res.body.key.prefix, store.key.slice(0, 12));
    assert.equal(res.body.key.expires_at, null);
    assert.ok(res.body.key.scopes.includes("webhooks"));
    assert.match(String(res.headers["x-request-id"]), /^req_/);
  });
});
