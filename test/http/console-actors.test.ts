/**
 * The console's in-process actors (src/http/console-actors.ts): a console page calls /v2 and /admin as
 * the signed-in user with a ticket that only this process holds. What a role may change is the API's own
 * scope check; history says who (`by`) and that it came through the console (`via`); API access turned
 * off closes the integrators' door, not the console; console calls spend no API budget and stay out of
 * the request log; a ticket never issued is refused.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Permission } from "../../src/domain/staff/index.ts";
import { permissionsOf, type StaffRole } from "../../src/domain/staff/index.ts";
import type { ConsoleActor } from "../../src/http/console-actors.ts";
import { type Client, type HttpResult, startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectError, expectStatus } from "../helpers/assertions.ts";
import {
  createOrderedOrder,
  createSupplier,
  idempotencyKey,
  listLocations,
  trackedVariants,
} from "../helpers/factories.ts";

let t: TestApp;
let store: TestStore;
let other: TestStore;

before(async () => {
  t = await startTestApp();
  store = await t.createStore({ seed: "demo" });
  other = await t.createStore();
});
after(() => t.close());

const staff = (role: StaffRole, email: string, staffId: number, storeId = store.id): ConsoleActor => ({
  storeId,
  by: email,
  actorId: -staffId,
  permissions: permissionsOf(role),
  operator: false,
});
const operator = (storeId = store.id): ConsoleActor => ({
  storeId,
  by: "operator",
  actorId: 0,
  permissions: ["suppliers", "purchase_orders", "receiving", "stock", "settings"] as Permission[],
  operator: true,
});

/** One call as the actor, the way the console makes it (the ticket lives for this call only). */
function as<T>(
  actor: ConsoleActor,
  call: (client: Client) => Promise<HttpResult<T>>,
): Promise<HttpResult<T>> {
  return t.runtime.app.consoleActors.with(actor, (authorization) => call(t.client(authorization)));
}

async function historyOf(orderId: number) {
  const res = await store.api.get(`/v2/purchase_orders/${orderId}/history?limit=250`);
  expectStatus(res, 200);
  return res.body.data as { type: string; by: string; via: string | null }[];
}

describe("history names the console user", () => {
  test("a staff member's order: by = their email, via = console", async () => {
    const supplier = await createSupplier(store.api);
    const created = await as(staff("purchasing", "pat@example.com", 7), (c) =>
      c.post("/v2/purchase_orders", {
        supplier_id: supplier.id,
        lines: [{ product_title: "Bolt", quantity: 2 }],
      }),
    );
    expectStatus(created, 201);
    assert.deepEqual(
      (await historyOf(created.body.data.id)).map((h) => [h.type, h.by, h.via]),
      [["created", "pat@example.com", "console"]],
    );
  });

  test("the operator's: by = operator, via = console", async () => {
    const supplier = await createSupplier(store.api);
    const created = await as(operator(), (c) =>
      c.post("/v2/purchase_orders", {
        supplier_id: supplier.id,
        lines: [{ product_title: "Nut", quantity: 1 }],
      }),
    );
    expectStatus(created, 201);
    assert.deepEqual(
      (await historyOf(created.body.data.id)).map((h) => [h.type, h.by, h.via]),
      [["created", "operator", "console"]],
    );
  });

  test("whoami shows the stand-in key: the user's name, the console prefix, the role's scopes", async () => {
    const res = await as(staff("inventory", "ivy@example.com", 8), (c) => c.get("/v2/whoami"));
    expectStatus(res, 200);
    assert.equal(res.body.shop.id, store.id);
    assert.equal(res.body.key.name, "ivy@example.com");
    assert.equal(res.body.key.prefix, "console");
    assert.deepEqual(res.body.key.scopes, ["read", "write:inventory"]);
  });
});

describe("a role is the API's scope check", () => {
  test("a viewer reads but a write is 403 insufficient_scope, and nothing is created", async () => {
    const viewer = staff("viewer", "vi@example.com", 9);
    expectStatus(await as(viewer, (c) => c.get("/v2/suppliers")), 200);
    const refused = await as(viewer, (c) => c.post("/v2/suppliers", { name: "Forged", currency: "USD" }));
    expectError(refused, 403, "insufficient_scope");
    const all = await store.api.get("/v2/suppliers?archived=all&limit=250");
    assert.equal(
      all.body.data.some((s: { name: string }) => s.name === "Forged"),
      false,
    );
  });

  test("inventory: no purchase order, but an adjustment and a receipt (receiving) are allowed", async () => {
    const inventory = staff("inventory", "ivy@example.com", 8);
    const supplier = await createSupplier(store.api);
    const [variant] = await trackedVariants(store.api);
    const [location] = await listLocations(store.api);
    const order = await createOrderedOrder(store.api, {
      supplier_id: supplier.id,
      lines: [{ variant_id: variant.id, quantity: 3, unit_cost: 2 }],
    });
    expectError(
      await as(inventory, (c) =>
        c.post("/v2/purchase_orders", {
          supplier_id: supplier.id,
          lines: [{ product_title: "X", quantity: 1 }],
        }),
      ),
      403,
      "insufficient_scope",
    );
    const receipt = await as(inventory, (c) =>
      c.post(
        `/v2/purchase_orders/${order.id}/receipts`,
        { lines: [{ line_id: order.lines[0].id, quantity: 1 }] },
        idempotencyKey("console-receipt"),
      ),
    );
    expectStatus(receipt, 201);
    const adjustment = await as(inventory, (c) =>
      c.post("/v2/stock_adjustments", {
        location_id: location.id,
        lines: [{ variant_id: variant.id, delta: 1 }],
      }),
    );
    expectStatus(adjustment, 201);
  });

  test("purchasing: no stock adjustment", async () => {
    const [variant] = await trackedVariants(store.api);
    const [location] = await listLocations(store.api);
    const refused = await as(staff("purchasing", "pat@example.com", 7), (c) =>
      c.post("/v2/stock_adjustments", {
        location_id: location.id,
        lines: [{ variant_id: variant.id, delta: 1 }],
      }),
    );
    expectError(refused, 403, "insufficient_scope");
  });

  test("a store's data is the actor's store only: another store's order is 404", async () => {
    const supplier = await createSupplier(other.api);
    const theirs = await other.api.post("/v2/purchase_orders", {
      supplier_id: supplier.id,
      lines: [{ product_title: "Theirs", quantity: 1 }],
    });
    expectStatus(theirs, 201);
    expectError(
      await as(staff("owner", "own@example.com", 10), (c) =>
        c.get(`/v2/purchase_orders/${theirs.body.data.id}`),
      ),
      404,
      "not_found",
    );
  });
});

describe("the console ticket", () => {
  test("a ticket this process never issued is 401 on /v2 and /admin", async () => {
    const forged = t.client("Console aGVsbG8td29ybGQtdGhpcy1pcy1ub3QtYS10aWNrZXQ");
    expectError(await forged.get("/v2/suppliers"), 401, "unauthorized");
    expectError(await forged.get(`/admin/stores/${store.id}`), 401, "unauthorized");
  });

  test("a ticket is gone once its call has settled", async () => {
    let kept = "";
    await t.runtime.app.consoleActors.with(operator(), async (authorization) => {
      kept = authorization;
      expectStatus(await t.client(authorization).get("/v2/whoami"), 200);
    });
    expectError(await t.client(kept).get("/v2/whoami"), 401, "unauthorized");
  });

  test("API access turned off refuses keys but not the console", async () => {
    const own = await t.createStore();
    expectStatus(await t.admin.patch(`/admin/stores/${own.id}`, { api_access: false }), 200);
    expectError(await own.api.get("/v2/suppliers"), 402, "feature_not_enabled");
    expectStatus(await as(operator(own.id), (c) => c.get("/v2/suppliers")), 200);
  });

  test("console calls spend no API budget and stay out of the request log", async () => {
    const own = await t.createStore();
    expectStatus(
      await t.admin.patch(`/admin/stores/${own.id}`, {
        rate_limits: { per_key_per_minute: 1, per_store_per_minute: 1, writes_per_store_per_minute: 1 },
      }),
      200,
    );
    for (let i = 0; i < 3; i++) {
      const res = await as(operator(own.id), (c) => c.get("/v2/suppliers"));
      expectStatus(res, 200);
      assert.equal(res.headers["ratelimit-limit"], undefined);
    }
    expectStatus(await own.api.get("/v2/suppliers"), 200);
    expectError(await own.api.get("/v2/suppliers"), 429, "rate_limited");
    await t.runtime.ctx.requestLog.flush();
    const log = await t.admin.get(`/admin/stores/${own.id}/request_log`);
    expectStatus(log, 200);
    assert.deepEqual(
      log.body.data.map((r: { path: string; status: number }) => [r.path, r.status]),
      [
        ["/v2/suppliers", 429],
        ["/v2/suppliers", 200],
      ],
    );
  });

  test("an Idempotency-Key replays per actor: a second send with the same key writes nothing new", async () => {
    const actor = staff("purchasing", "pat@example.com", 7);
    const key = idempotencyKey("console-supplier");
    const first = await as(actor, (c) => c.post("/v2/suppliers", { name: "Once", currency: "USD" }, key));
    const again = await as(actor, (c) => c.post("/v2/suppliers", { name: "Once", currency: "USD" }, key));
    expectStatus(first, 201);
    expectStatus(again, 201);
    assert.equal(again.headers["idempotent-replayed"], "true");
    assert.equal(again.body.data.id, first.body.data.id);
  });
});

describe("the admin API as a console user", () => {
  test("the owner reaches their own store's settings", async () => {
    const res = await as(staff("owner", "own@example.com", 10), (c) =>
      c.get(`/admin/stores/${store.id}/keys`),
    );
    expectStatus(res, 200);
  });

  test("the owner is refused another store, the store list and the platform's controls", async () => {
    const owner = staff("owner", "own@example.com", 10);
    expectError(await as(owner, (c) => c.get(`/admin/stores/${other.id}/keys`)), 403, "insufficient_scope");
    expectError(await as(owner, (c) => c.get("/admin/stores")), 403, "insufficient_scope");
    expectError(
      await as(owner, (c) => c.post(`/admin/stores/${store.id}/platform/faults`, {})),
      403,
      "insufficient_scope",
    );
  });

  test("an owner's forged writes of what the operator alone sets are 403 and change nothing", async () => {
    const owner = staff("owner", "own@example.com", 10);
    const supplier = await createSupplier(store.api);
    const before = (await t.admin.get(`/admin/stores/${store.id}`)).body.data;
    const forged: [string, string, Record<string, unknown>][] = [
      ["PATCH", `/admin/stores/${store.id}`, { rate_limits: { per_key_per_minute: 100000 } }],
      ["PATCH", `/admin/stores/${store.id}`, { name: "Renamed by the owner" }],
      ["PATCH", `/admin/stores/${store.id}`, { owner_email: "someone@else.test" }],
      ["PATCH", `/admin/stores/${store.id}`, { shopify: { access_token: "shpat_forged" } }],
      // A permitted field beside a refused one: the whole request is refused.
      ["PATCH", `/admin/stores/${store.id}`, { api_access: false, rate_limits: { per_store_per_minute: 9 } }],
      // Not even a malformed value of an operator's field reaches validation (no hint of the rules).
      ["PATCH", `/admin/stores/${store.id}`, { rate_limits: { per_key_per_minute: -1 } }],
      ["POST", `/admin/stores/${store.id}/suppliers/${supplier.id}/network_link`, { linked: true }],
      ["POST", `/admin/stores/${store.id}/platform/inventory`, { changes: [] }],
      ["POST", `/admin/stores/${store.id}/platform/catalog/generate`, { count: 1 }],
      ["POST", "/admin/stores", { name: "Owner's second", currency: "USD", timezone: "UTC" }],
      ["PATCH", `/admin/stores/${other.id}`, { numbering: { purchase_order_prefix: "X-" } }],
    ];
    for (const [method, url, body] of forged) {
      const res = await as(owner, (c) => (method === "PATCH" ? c.patch(url, body) : c.post(url, body)));
      assert.equal(res.status, 403, `${method} ${url} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      expectError(res, 403, "insufficient_scope");
    }
    assert.deepEqual((await t.admin.get(`/admin/stores/${store.id}`)).body.data, before);
    const row = await t.runtime.ctx.db
      .selectFrom("suppliers")
      .select("network_linked")
      .where("id", "=", supplier.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.network_linked, false);
    const stores = (await t.admin.get("/admin/stores")).body.data as { name: string }[];
    assert.equal(
      stores.some((s) => s.name === "Owner's second"),
      false,
    );
    const theirs = (await t.admin.get(`/admin/stores/${other.id}`)).body.data;
    assert.notEqual(theirs.numbering.purchase_order_prefix, "X-");
  });

  test("the owner's own settings writes go through: numbering and API access", async () => {
    const own = await t.createStore();
    const owner = staff("owner", "own@example.com", 12, own.id);
    const res = await as(owner, (c) =>
      c.patch(`/admin/stores/${own.id}`, { numbering: { purchase_order_prefix: "OWN-" }, api_access: false }),
    );
    expectStatus(res, 200);
    assert.equal(res.body.data.numbering.purchase_order_prefix, "OWN-");
    assert.equal(res.body.data.api_access, false);
    expectStatus(await as(owner, (c) => c.put(`/admin/stores/${own.id}/tax_rates`, { rates: [] })), 200);
  });

  test("other roles are refused the admin API", async () => {
    for (const role of ["purchasing", "inventory", "viewer"] as const)
      expectError(
        await as(staff(role, `${role}@example.com`, 11), (c) => c.get(`/admin/stores/${store.id}/keys`)),
        403,
        "insufficient_scope",
      );
  });

  test("the operator's actor reaches every admin route", async () => {
    expectStatus(await as(operator(), (c) => c.get("/admin/stores")), 200);
  });
});
