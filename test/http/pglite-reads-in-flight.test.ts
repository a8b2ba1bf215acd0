/**
 * On the embedded database the single-record reads' statements (hot queries, db/prepared.ts) take
 * shared turns on the one connection (pglite-dialect.ts, ConnectionTurns): several are sent to the
 * database's thread at once, which runs them one after another, instead of each waiting for the
 * previous one's answer to come back to the API's thread. What they answer must not change, and no
 * statement may be sent while a transaction holds the connection. On PostgreSQL (a pool) nothing of
 * this applies.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { PGliteThread } from "../../src/db/pglite-thread.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { createDraftOrder, createSupplier, customLine, trackedVariants } from "../helpers/factories.ts";

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/**
 * Statements sent to the thread and not answered yet, the most at once, and any sent inside a
 * transaction. A transaction ends when its COMMIT or ROLLBACK is sent: the connection is handed on
 * then (pglite-dialect.ts), and what is sent after it runs after it.
 */
const flight = { now: 0, most: 0, inTransaction: false, besideTransaction: 0, transactions: 0 };
const threadQuery = PGliteThread.prototype.query;
PGliteThread.prototype.query = function (this: PGliteThread, sql: string, params?: unknown[], name?: string) {
  const control = /^\s*(begin|commit|rollback)\b/i.exec(sql)?.[1]?.toLowerCase();
  if (control === "commit" || control === "rollback") {
    flight.inTransaction = false;
    return threadQuery.call(this, sql, params, name);
  }
  if (control === "begin") {
    flight.inTransaction = true;
    flight.transactions++;
  } else if (flight.inTransaction && flight.now > 0) flight.besideTransaction++;
  flight.now++;
  flight.most = Math.max(flight.most, flight.now);
  const settle = () => {
    flight.now--;
  };
  const answer = threadQuery.call(this, sql, params, name);
  answer.then(settle, settle);
  return answer;
} as typeof PGliteThread.prototype.query;

describe("single reads in flight together on the embedded database", { skip: onPostgres }, () => {
  let t: TestApp;
  let store: TestStore;
  let paths: string[];
  let supplierPath: string;

  before(async () => {
    t = await startTestApp();
    store = await t.createStore({ seed: "demo" });
    await t.drain();
    const supplier = await createSupplier(store.api, { name: "Acme Ltd", email: "orders@acme.test" });
    const variants = await trackedVariants(store.api);
    const order = await createDraftOrder(store.api, {
      supplier_id: supplier.id,
      lines: [{ variant_id: variants[0].id, quantity: 3 }, customLine(2, "1.25")],
    });
    supplierPath = `/v2/suppliers/${supplier.id}`;
    paths = [
      supplierPath,
      `/v2/purchase_orders/${order.id}`,
      ...variants.slice(0, 6).map((v) => `/v2/variants/${v.id}`),
    ];
  });
  after(() => t.close());

  test("reads sent together go to the thread together and answer what they answer one at a time", async () => {
    const alone = [];
    for (const path of paths) alone.push((await store.api.get(path)).raw.body);
    await t.runtime.ctx.requestLog.flush();
    flight.most = 0;
    const together = await Promise.all(paths.map((path) => store.api.get(path)));
    for (const [i, res] of together.entries()) {
      expectStatus(res, 200);
      assert.equal(res.raw.body, alone[i], paths[i]);
    }
    // One at a time (each waiting for the previous answer) this was 1.
    assert.ok(flight.most >= 4, `at most ${flight.most} statements in flight`);
  });

  test("nothing is sent beside a transaction: a write among the reads waits for them, and they for it", async () => {
    flight.besideTransaction = 0;
    flight.transactions = 0;
    const before = (await store.api.get(supplierPath)).body.data;
    const answers = await Promise.all([
      ...paths.map((path) => store.api.get(path)),
      store.api.patch(supplierPath, { name: "Acme Trading" }),
      ...paths.map((path) => store.api.get(path)),
    ]);
    for (const res of answers) expectStatus(res, 200);
    const after = (await store.api.get(supplierPath)).body.data;
    assert.equal(before.name, "Acme Ltd");
    assert.equal(after.name, "Acme Trading");
    assert.ok(flight.transactions >= 1, "the write ran a transaction");
    assert.equal(flight.besideTransaction, 0);
  });
});
