/**
 * `GET /v2/suppliers/{id}`, `/v2/variants/{id}` and `/v2/purchase_orders/{id}` on PostgreSQL read their
 * record as JSON inside the key lookup's own statement (src/db/prepared.ts, keyLookupBeside; issue 22
 * item 2). What they answer must not change: the same body as the handler's own read (asked here with a
 * zero-padded id, which is never read ahead), and a key refused for any reason answers as before
 * without showing what was read with it. On the embedded database nothing is read ahead and the same
 * tests pass through the handler's own read.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectError, expectStatus } from "../helpers/assertions.ts";
import { createDraftOrder, createSupplier, customLine, trackedVariants } from "../helpers/factories.ts";

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe("single-record reads made with the key lookup", () => {
  let t: TestApp;
  let store: TestStore;
  let other: TestStore;
  let paths: { supplier: string; variant: string; order: string };
  let bigOrder: string;

  before(async () => {
    t = await startTestApp();
    store = await t.createStore({ seed: "demo" });
    other = await t.createStore();
    await t.drain();
    const supplier = await createSupplier(store.api, {
      company_name: "Acme Ltd",
      email: "orders@acme.test",
      min_order_value: "250",
      match_tags: ["bolts"],
      location_account_numbers: {},
    });
    const [variant] = await trackedVariants(store.api);
    const small = await createDraftOrder(store.api, {
      supplier_id: supplier.id,
      notes: "Back door",
      lines: [{ variant_id: variant.id, quantity: 3 }, customLine(2, "1.25")],
    });
    const big = await createDraftOrder(store.api, {
      supplier_id: supplier.id,
      lines: Array.from({ length: 51 }, () => customLine(1, "2.00")),
    });
    paths = {
      supplier: `/v2/suppliers/${supplier.id}`,
      variant: `/v2/variants/${variant.id}`,
      order: `/v2/purchase_orders/${small.id}`,
    };
    bigOrder = `/v2/purchase_orders/${big.id}`;
  });
  after(() => t.close());

  /** The same path with the id zero-padded: validated to the same id, never read ahead (auth.ts). */
  const padded = (path: string) => path.replace(/\/(\d+)$/, "/0$1");

  test("each read answers exactly what the handler's own read answers", async () => {
    for (const path of [...Object.values(paths), bigOrder]) {
      const ahead = await store.api.get(path);
      const own = await store.api.get(padded(path));
      expectStatus(ahead, 200);
      expectStatus(own, 200);
      assert.deepEqual(ahead.body, own.body, path);
      assert.equal(ahead.body.data.id, Number(path.split("/").pop()), path);
    }
  });

  test("on PostgreSQL a single read takes one pool checkout, the key lookup's (two before); a big order two, its PDF three with the key kept, one once cached (eight and twelve before)", {
    skip: !onPostgres,
  }, async () => {
    const pool = pg.Pool.prototype as unknown as { connect: (...args: unknown[]) => unknown };
    const connect = pool.connect;
    let checkouts = 0;
    pool.connect = function (this: unknown, ...args: unknown[]) {
      checkouts++;
      return connect.apply(this, args);
    };
    const checkoutsOf = async (path: string) => {
      // The key in use, kept in process (auth-cache.ts): routes without a read-ahead skip its lookup.
      expectStatus(await store.api.get("/v2/whoami"), 200);
      await t.runtime.ctx.requestLog.flush();
      checkouts = 0;
      expectStatus(await store.api.get(path), 200);
      return checkouts;
    };
    try {
      assert.equal(await checkoutsOf(paths.supplier), 1);
      assert.equal(await checkoutsOf(paths.variant), 1);
      assert.equal(await checkoutsOf(paths.order), 1);
      // Read by the handler: the record's checkout (the key is kept).
      assert.equal(await checkoutsOf(padded(paths.supplier)), 1);
      // A big order: the read-ahead says it is not small, then its row, its parts and its lines'
      // JSON text in one statement (purchase-orders/text-read.ts; its row, then its parts, before).
      assert.equal(await checkoutsOf(bigOrder), 2);
      // Its PDF (the key kept): the PDF's version (not cached), the order with its parts and its lines'
      // text in one statement (its row, then its parts, before), its supplier; once cached, the
      // version. The version is read once (four, reading it again with store, location and bill-to).
      assert.equal(await checkoutsOf(`${bigOrder}/pdf`), 3);
      assert.equal(await checkoutsOf(`${bigOrder}/pdf`), 1);
    } finally {
      pool.connect = connect;
    }
  });

  test("a key refused for any reason answers as before, and a record of another store is not found", async () => {
    const created = await t.admin.post(`/admin/stores/${store.id}/keys`, {
      name: "soon revoked",
      scopes: ["read"],
    });
    expectStatus(created, 201);
    const revokedClient = t.client(`Bearer ${created.body.data.key}`);
    expectStatus(await revokedClient.get(paths.supplier), 200);
    expectStatus(
      await t.admin.post(`/admin/stores/${store.id}/keys/${created.body.data.id}/revoke`, {}),
      200,
    );
    const unknown = t.client(`Bearer sr2_${"A".repeat(40)}`);
    for (const path of Object.values(paths)) {
      expectError(await revokedClient.get(path), 401, "unauthorized");
      expectError(await unknown.get(path), 401, "unauthorized");
      const elsewhere = await other.api.get(path);
      expectError(elsewhere, 404, "not_found");
      assert.equal(JSON.stringify(elsewhere.body).includes("Acme"), false);
    }
    expectStatus(await t.admin.patch(`/admin/stores/${store.id}`, { api_access: false }), 200);
    try {
      for (const path of Object.values(paths)) {
        const refused = await store.api.get(path);
        expectError(refused, 402, "feature_not_enabled");
        assert.equal(refused.body.data, undefined);
      }
    } finally {
      expectStatus(await t.admin.patch(`/admin/stores/${store.id}`, { api_access: true }), 200);
    }
  });

  test("ids the record's column cannot hold answer as before: 422 beyond the contract's range, 404 within", async () => {
    expectError(await store.api.get("/v2/suppliers/2147483648"), 422, "validation_failed");
    expectError(await store.api.get("/v2/purchase_orders/2147483648"), 422, "validation_failed");
    expectError(await store.api.get("/v2/suppliers/2147483647"), 404, "not_found");
    expectError(await store.api.get("/v2/variants/9007199254740991"), 404, "not_found");
    expectError(await store.api.get("/v2/purchase_orders/2147483647"), 404, "not_found");
  });
});
