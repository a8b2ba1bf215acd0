/**
 * On the embedded database the service's statements run as named prepared statements
 * (src/db/pglite-statements.ts): reading one supplier twice prepares its statement once, and the
 * answers are the same. On PostgreSQL the pool names only its hot queries (src/db/prepared.ts), so
 * this file's subject is PGlite's alone.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { createSupplier } from "../helpers/factories.ts";

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe("embedded database: a request's statements are prepared once", { skip: onPostgres }, () => {
  let t: TestApp;
  let store: TestStore;
  before(async () => {
    t = await startTestApp();
    store = await t.createStore();
  });
  after(() => t.close());

  async function preparedCount(): Promise<number> {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements`.execute(
      t.runtime.ctx.db,
    );
    return rows[0].n;
  }

  test("the second read of a supplier prepares nothing new and answers the same", async () => {
    const supplier = await createSupplier(store.api, { name: "Prepared Supplies" });
    const first = await store.api.get(`/v2/suppliers/${supplier.id}`);
    expectStatus(first, 200);
    // The request log's flush (rows and keys' last use) runs on a timer and prepares its own two
    // statements the first time: flushed here, so a flush between the two reads prepares nothing new.
    await t.runtime.ctx.requestLog.flush();
    const kept = await preparedCount();
    assert.ok(kept > 0, "the service's statements are kept prepared");
    const second = await store.api.get(`/v2/suppliers/${supplier.id}`);
    expectStatus(second, 200);
    assert.deepEqual(second.body, first.body);
    await t.runtime.ctx.requestLog.flush();
    assert.equal(await preparedCount(), kept);
  });
});
