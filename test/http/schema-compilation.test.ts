import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import type { HttpContext } from "../../src/http/context.ts";
import { RateLimiter } from "../../src/http/plugins/rate-limit.ts";
import type { SchemaCompilation } from "../../src/http/schema-compilers.ts";
import type { Module } from "../../src/modules/module.ts";
import { ADMIN_TOKEN, startTestApp, type TestApp } from "../helpers/app.ts";
import { expectDetails, expectStatus } from "../helpers/assertions.ts";

/**
 * Other test files compile a route's schemas on its first request (test/helpers/app.ts): a schema no
 * request of theirs reaches would never be compiled. Production compiles them all at start, so here the
 * whole service does, as production does.
 */
describe("every route's schemas compile at start", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ schemaCompilation: "start" });
  });
  after(() => t.close());

  test("the whole service gets ready, then validates requests and serializes answers", async () => {
    await t.runtime.app.ready();
    const refused = await t.admin.post("/admin/stores", {
      name: 5,
      currency: "USD",
      timezone: "UTC",
      owner_email: "owner@example.com",
      seed: "empty",
      extra: true,
    });
    expectDetails(refused, [
      ["name", "invalid_type"],
      ["extra", "unknown_field"],
    ]);
    const store = await t.createStore({ name: "Compiled Shop" });
    const whoami = await store.api.get("/v2/whoami");
    expectStatus(whoami, 200);
    assert.equal(whoami.body.shop.name, "Compiled Shop");
  });
});

/** A route whose body or answer schema neither Ajv nor fast-json-stringify can compile. */
function brokenRoute(part: "body" | "response"): Module {
  const schema =
    part === "body"
      ? { body: { type: "object", properties: { a: { type: "no-such-type" } } } }
      : { response: { 200: { type: "object", properties: { a: { $ref: "no-such-schema#" } } } } };
  return {
    name: "broken",
    async publicRoutes(app) {
      app.post("/broken", { schema }, async () => ({ a: 1 }));
      app.get(
        "/fine",
        { schema: { response: { 200: { type: "object", properties: { ok: { type: "boolean" } } } } } },
        async () => ({ ok: true }),
      );
    },
  };
}

/** The HTTP app alone (no database: nothing here reaches one) with one module's routes. */
function appWith(module: Module, schemaCompilation: SchemaCompilation): Promise<FastifyInstance> {
  const config = loadConfig({ DATA_DIR: ":memory:", ADMIN_TOKEN, LOG_LEVEL: "silent" });
  const ctx = { config, modules: [module], rateLimiter: new RateLimiter(null) } as unknown as HttpContext;
  return buildApp({ ctx, adminTokenHash: "0".repeat(64), schemaCompilation });
}

describe("a schema that does not compile", () => {
  for (const [part, code] of [
    ["body", "FST_ERR_SCH_VALIDATION_BUILD"],
    ["response", "FST_ERR_SCH_SERIALIZATION_BUILD"],
  ] as const) {
    test(`in a route's ${part}: stops the start when compiled at start`, async () => {
      const app = await appWith(brokenRoute(part), "start");
      await assert.rejects(async () => app.ready(), { code });
    });

    test(`in a route's ${part}: fails that route's requests, and only them, when compiled on first use`, async () => {
      const app = await appWith(brokenRoute(part), "first-use");
      try {
        await app.ready();
        const broken = await app.inject({ method: "POST", url: "/broken", payload: { a: 1 } });
        assert.equal(broken.statusCode, 500);
        assert.equal(broken.json().error.code, "internal_error");
        const fine = await app.inject({ method: "GET", url: "/fine" });
        assert.equal(fine.statusCode, 200);
        assert.deepEqual(fine.json(), { ok: true });
      } finally {
        await app.close();
      }
    });
  }
});
