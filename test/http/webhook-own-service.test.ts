/**
 * Creating a webhook under the own-service rule (issue 18 item 5), with the default HOST (127.0.0.1),
 * PORT 3999, PUBLIC_HOSTNAMES and private targets allowed: the service's own port is refused on every
 * local address and name, a local receiver on another port is accepted.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { foundationModule } from "../../src/modules/foundation.ts";
import { createWebhooksModule } from "../../src/modules/webhooks.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";

describe("webhook own-service rule over HTTP", () => {
  let t: TestApp;
  let store: TestStore;

  before(async () => {
    t = await startTestApp({
      env: { PORT: "3999", PUBLIC_HOSTNAMES: "api.stockroom.test" },
      modules: [foundationModule, createWebhooksModule({ resolve: async () => ["127.0.0.1"] })],
    });
    store = await t.createStore();
  });
  after(() => t.close());

  test("the service's own port on loopback, localhost, [::1] and 0.0.0.0, and its public names, are refused", async () => {
    const refused: Array<[string, string]> = [
      ["https://127.0.0.1:3999/hook", "url must not point at this service (127.0.0.1:3999)"],
      [
        "https://localhost:3999/hook",
        "url must not point at this service (localhost resolves to 127.0.0.1, port 3999)",
      ],
      ["https://[::1]:3999/hook", "url must not point at this service ([::1]:3999)"],
      ["https://0.0.0.0:3999/hook", "url must not point at this service (0.0.0.0:3999)"],
      ["https://api.stockroom.test/hook", "url must not point at this service (api.stockroom.test)"],
      ["https://api.stockroom.test:8443/hook", "url must not point at this service (api.stockroom.test)"],
    ];
    for (const [url, message] of refused) {
      const res = await store.api.post("/v2/webhooks", { url, events: ["*"] });
      assert.equal(res.status, 422, url);
      assert.equal(res.body.error.code, "validation_failed");
      assert.deepEqual(res.body.error.details, [{ field: "url", code: "invalid_url", message }], url);
    }
    assert.deepEqual((await store.api.get("/v2/webhooks")).body, { data: [] });
  });

  test("a local receiver on another port is accepted when private targets are allowed", async () => {
    for (const url of [
      "https://127.0.0.1:8443/hook",
      "https://localhost:8443/hook",
      "https://[::1]:8443/hook",
    ]) {
      const res = await store.api.post("/v2/webhooks", { url, events: ["*"] });
      assert.equal(res.status, 201, `${url}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.data.url, url);
    }
    // A PATCH to the own port is refused the same way.
    const list = (await store.api.get("/v2/webhooks")).body.data;
    const patched = await store.api.patch(`/v2/webhooks/${list[0].id}`, { url: "https://localhost:3999/x" });
    assert.equal(patched.status, 422);
    assert.deepEqual(patched.body.error.details, [
      {
        field: "url",
        code: "invalid_url",
        message: "url must not point at this service (localhost resolves to 127.0.0.1, port 3999)",
      },
    ]);
  });
});
