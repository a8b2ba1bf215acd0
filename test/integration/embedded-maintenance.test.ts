import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { maintainEmbeddedTables, tablesDueForMaintenance } from "../../src/db/maintenance.ts";
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
});
