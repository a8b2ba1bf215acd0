/**
 * A console form's Idempotency-Key after a refusal (docs/decisions.md, "Console forms and their
 * Idempotency-Keys"): the API keeps a 422 under the key it was sent with, so the same key on the
 * corrected form would be refused as a different body (409 idempotency_key_reused). The refused form
 * comes back with a fresh key: refused, corrected, accepted, and one record made.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Permission } from "../../src/domain/staff/index.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectError } from "../helpers/assertions.ts";
import { ConsoleAgent, hiddenValue, pageText as text } from "../helpers/console-agent.ts";
import { listLocations, trackedVariants } from "../helpers/factories.ts";

describe("console forms after a refusal", () => {
  let t: TestApp;
  let store: TestStore;
  let operator: ConsoleAgent;
  const path = (rest: string) => `/console/stores/${store.id}${rest}`;

  before(async () => {
    t = await startTestApp();
    store = await t.createStore({ seed: "demo" });
    await t.drain();
    operator = new ConsoleAgent(t);
    assert.equal((await operator.login()).status, 303);
  });
  after(() => t.close());

  test("a stock adjustment refused by the API is corrected on a fresh key and created once", async () => {
    const [variant] = (await trackedVariants(store.api)).filter((v) => v.sku);
    const [location] = await listLocations(store.api);
    const newPage = await operator.get(path("/stock_adjustments/new"));
    const first = hiddenValue(newPage.body, "_key");
    const form = {
      _csrf: hiddenValue(newPage.body, "_csrf"),
      location_id: String(location.id),
      reason: "damaged",
      item: variant.sku as string,
      delta: "-1",
    };
    // A location gone since the page was drawn: refused by the API's handler (not by the form, nor by
    // its schema, which claims no key), under the first key.
    const refused = await operator.post(path("/stock_adjustments"), {
      ...form,
      _key: first,
      location_id: "999999",
      note: "Dropped",
    });
    assert.equal(refused.status, 422);
    assert.match(text(refused.body), /Location /);
    const second = hiddenValue(refused.body, "_key");
    assert.notEqual(second, first);
    assert.match(second, /^[0-9a-f-]{36}$/);
    assert.equal((await store.api.get("/v2/stock_adjustments")).body.data.length, 0);

    // Why: the first key now holds the refusal; the corrected body under it (sent as the operator's
    // console session sends it) is a different body.
    const operatorActor = {
      storeId: store.id,
      by: "operator",
      actorId: 0,
      permissions: ["suppliers", "purchase_orders", "receiving", "stock", "settings"] as Permission[],
      operator: true,
    };
    const reused = await t.runtime.app.consoleActors.with(operatorActor, (authorization) =>
      t.client(authorization).post(
        "/v2/stock_adjustments",
        {
          location_id: location.id,
          reason: "damaged",
          note: "Dropped",
          lines: [{ variant_id: variant.id, delta: -1 }],
        },
        { "idempotency-key": first },
      ),
    );
    expectError(reused, 409, "idempotency_key_reused");

    const accepted = await operator.post(path("/stock_adjustments"), {
      ...form,
      _key: second,
      note: "Dropped",
    });
    assert.equal(accepted.status, 303, accepted.body);
    const again = await operator.post(path("/stock_adjustments"), { ...form, _key: second, note: "Dropped" });
    assert.equal(again.status, 303);
    assert.equal(again.location, accepted.location);
    const made = (await store.api.get("/v2/stock_adjustments")).body.data as { note: string }[];
    assert.deepEqual(
      made.map((a) => a.note),
      ["Dropped"],
    );
  });
});
