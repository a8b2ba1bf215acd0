/**
 * On PostgreSQL the worker has a pool of its own (issue 22 item 1: the platform pushes keeping up with
 * 32 concurrent receipts). While every connection of the API's pool is held, as under a burst of
 * requests, the worker still claims and runs a platform push to the end. With one shared pool the
 * push's first statement waited for a connection and failed after the pool's 5 s checkout timeout.
 * The embedded database is one connection whose turns alternate (pglite-dialect.ts): not tested here.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { receiptWithItsPushQueued } from "../helpers/factories.ts";

const API_POOL = 10;

describe("the worker's own pool (PostgreSQL)", { skip: !process.env.TEST_DATABASE_URL }, () => {
  let t: TestApp;
  let store: TestStore;

  before(async () => {
    t = await startTestApp();
    store = await t.createStore({ seed: "demo" });
    await t.drain();
  });

  after(() => t.close());

  test("a push runs to the end while every API connection is held", async () => {
    const { order } = await receiptWithItsPushQueued(t, store.api, {
      lines: 3,
      received: 1,
      key: "worker-pool",
    });
    await t.runtime.ctx.requestLog.flush();

    // Every API connection inside a transaction that waits until the push is done.
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    let holding = 0;
    const allHeld = new Promise<void>((resolve) => {
      for (let i = 0; i < API_POOL; i++)
        void t.runtime.ctx.db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx);
          if (++holding === API_POOL) resolve();
          await held;
        });
    });
    await allHeld;
    let ran: number;
    try {
      ran = await t.drain();
    } finally {
      letGo();
    }
    assert.equal(ran, 1);
    const after = await store.api.get(`/v2/purchase_orders/${order.id}`);
    expectStatus(after, 200);
    assert.equal(after.body.data.receipts[0].platform_sync.state, "synced");
  });
});
