import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import {
  deferMaintenance,
  MAINTENANCE_DEFERRED_AT_MOST,
  maintainEmbeddedTables,
  tablesDueForMaintenance,
} from "../../src/db/maintenance.ts";
import type { Runtime } from "../../src/runtime.ts";
import { embeddedRuntimeWithStore, reltuplesOf } from "../helpers/embedded-runtime.ts";

/** The embedded database's stand-in for autovacuum (PGlite has no daemon to gather statistics). */
describe("embedded database maintenance", () => {
  let runtime: Runtime;
  const reltuples = (table: string) => reltuplesOf(runtime, table);

  before(async () => {
    ({ runtime } = await embeddedRuntimeWithStore("Maintained", "demo"));
  });
  after(() => runtime.close());

  test("tables never analysed get statistics; then nothing is due", async () => {
    const due = await tablesDueForMaintenance(runtime.ctx.db);
    assert.ok(due.includes("inventory_levels"), `due: ${due.join(", ")}`);
    assert.equal(await reltuples("inventory_levels"), -1, "never analysed");
    assert.deepEqual(await maintainEmbeddedTables(runtime.ctx.db), due);
    assert.ok((await reltuples("inventory_levels")) > 0);
    assert.deepEqual(await tablesDueForMaintenance(runtime.ctx.db), []);
  });

  test("a table that grew by more than a fifth is due again, and the periodic task takes it", async () => {
    await maintainEmbeddedTables(runtime.ctx.db);
    const before = await reltuples("request_log");
    await sql`insert into request_log (store_id, key_id, method, path, status, duration_ms, idempotency_key,
        request_id, created_at)
      select 1, null, 'GET', '/v2/whoami', 200, 1, null, 'req_' || g, now() from generate_series(1, 20000) g`.execute(
      runtime.ctx.db,
    );
    assert.deepEqual(await tablesDueForMaintenance(runtime.ctx.db), ["request_log"]);
    await runtime.worker.runPeriodic("embedded-maintenance");
    assert.deepEqual(await tablesDueForMaintenance(runtime.ctx.db), []);
    assert.ok((await reltuples("request_log")) >= before + 20000);
  });

  test("while API statements wait for the connection a tick passes, ten in a row at most", async () => {
    const db = runtime.ctx.db;
    await maintainEmbeddedTables(db);
    await sql`insert into request_log (store_id, key_id, method, path, status, duration_ms, idempotency_key,
        request_id, created_at)
      select 1, null, 'GET', '/v2/whoami', 200, 1, null, 'wait_' || g, now() from generate_series(1, 30000) g`.execute(
      db,
    );
    assert.deepEqual(await tablesDueForMaintenance(db), ["request_log"]);
    assert.equal(deferMaintenance(db), false, "nobody waits: the tick runs");
    // A transaction holds the one connection and an API statement waits behind it.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = () => {};
    const inside = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const transaction = db.transaction().execute(async () => {
      holding();
      await held;
    });
    await inside;
    const waiting = db.selectFrom("stores").select("id").execute();
    await new Promise((resolve) => setImmediate(resolve));
    // The periodic task returns without asking for the connection (it would wait for the transaction).
    const ran = await Promise.race([
      runtime.worker.runPeriodic("embedded-maintenance").then(() => "returned"),
      new Promise((resolve) => setTimeout(() => resolve("waited for the connection"), 2000)),
    ]);
    assert.equal(ran, "returned");
    for (let tick = 0; tick < MAINTENANCE_DEFERRED_AT_MOST; tick++) assert.equal(deferMaintenance(db), true);
    assert.equal(deferMaintenance(db), false, "the eleventh tick in a row runs");
    release();
    await transaction;
    await waiting;
    assert.deepEqual(await tablesDueForMaintenance(db), ["request_log"], "nothing was vacuumed meanwhile");
    await runtime.worker.runPeriodic("embedded-maintenance");
    assert.deepEqual(await tablesDueForMaintenance(db), []);
  });
});
