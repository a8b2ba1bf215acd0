/**
 * A push's statements that name movements by id or by record find them by key, not through the
 * partial indexes on `pushed_at is null` (docs/history/performance-journal.md, "The write path, twelfth
 * session"): those indexes' statistics are taken when few movements wait, so the planner expected one row
 * there and walked every waiting movement of the store to find the few asked for. Here the statistics are
 * taken with none waiting, then thousands wait, as in a burst; each statement's plan, with the values
 * it was run with, must not go through those indexes. The decisions of what is sent (the in-flight
 * mark, the batch) run as the worker runs them, fenced on a claimed push job's lease (heldJobs), so
 * the plans checked are those of the statements a push sends.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { CompiledQuery, sql } from "kysely";
import type pg from "pg";
import { pgDriver } from "../../src/db/pg-driver.ts";
import { PGliteThread } from "../../src/db/pglite-thread.ts";
import {
  assignBatches,
  costsInFlightBefore,
  markMovementsPushed,
  markMovementsSent,
  markMovementsUnsent,
  PUSH_JOB,
  pushStandingOf,
  refreshLevels,
  unpushedWithBatch,
} from "../../src/domain/stock/index.ts";
import type { JobLease } from "../../src/jobs/queue.ts";
import { batchMark } from "../../src/platform/push-batches.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";

/** Statements sent while recording, with the values they were run with. */
let recording: Array<{ sql: string; parameters: unknown[] }> | null = null;

const threadQuery = PGliteThread.prototype.query;
PGliteThread.prototype.query = function (this: PGliteThread, text: string, parameters?: unknown[]) {
  recording?.push({ sql: text, parameters: parameters ?? [] });
  return threadQuery.call(this, text, parameters);
} as typeof PGliteThread.prototype.query;

if (process.env.TEST_DATABASE_URL) {
  const { Client } = pgDriver();
  const clientQuery = Client.prototype.query as (...args: unknown[]) => unknown;
  Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string; values?: unknown[] } | undefined;
    if (recording && first !== undefined)
      recording.push(
        typeof first === "string"
          ? { sql: first, parameters: (args[1] as unknown[]) ?? [] }
          : { sql: first.text ?? "", parameters: first.values ?? [] },
      );
    return clientQuery.apply(this, args);
  } as typeof Client.prototype.query;
}

const WAITING = 3000;

describe("a push's statements on a store with thousands of movements waiting", () => {
  let t: TestApp;
  let storeId: number;
  let waiting: number[];
  /** A push job claimed as the worker claims one: the lease its decisions are fenced on. */
  let lease: JobLease;

  before(async () => {
    t = await startTestApp();
    storeId = (await t.createStore({ seed: "empty" })).id;
    const { db } = t.runtime.ctx;
    // Acknowledged movements, the statistics taken then, and a burst's worth waiting after.
    await sql`insert into stock_movements (store_id, subject_type, subject_id, inventory_item_id, location_id,
        available_delta, on_hand_delta, reason, pushed_at)
      select ${storeId}, 'stock_adjustment', g / 200, g % 5000, 1, 1, 1, 'correction', now()
      from generate_series(1, ${WAITING}) g`.execute(db);
    await sql`analyze stock_movements`.execute(db);
    const { rows } = await sql<{
      id: number;
    }>`insert into stock_movements (store_id, subject_type, subject_id,
        inventory_item_id, location_id, available_delta, on_hand_delta, reason)
      select ${storeId}, 'stock_adjustment', 1000 + g / 200, g % 5000, 1, 1, 1, 'correction'
      from generate_series(0, ${WAITING - 1}) g
      returning id`.execute(db);
    waiting = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
    const { jobs } = t.runtime.ctx;
    await db
      .transaction()
      .execute((trx) => jobs.enqueue(trx, PUSH_JOB, { plans: true }, { storeId, runAt: new Date(0) }));
    const [claimed] = await jobs.claim(db, "plans-worker", 1, [PUSH_JOB]);
    assert.ok(claimed, "a push job claimed");
    lease = { jobId: claimed.id, holder: claimed.locked_by, attempts: claimed.attempts };
  });
  after(() => t.close());

  /** The plan of each statement `work` ran on stock_movements, with the values it ran with. */
  async function plansOf(work: () => Promise<unknown>): Promise<string[]> {
    const sent: Array<{ sql: string; parameters: unknown[] }> = [];
    recording = sent;
    try {
      await work();
    } finally {
      recording = null;
    }
    const mine = sent.filter((s) => /stock_movements/.test(s.sql));
    assert.ok(mine.length > 0, "the statements were recorded");
    const plans: string[] = [];
    for (const s of mine) {
      const { rows } = await t.runtime.ctx.db.executeQuery(
        CompiledQuery.raw(`explain ${s.sql}`, s.parameters),
      );
      plans.push((rows as Array<Record<string, string>>).map((r) => r["QUERY PLAN"]).join("\n"));
    }
    return plans;
  }

  function assertByKey(plans: string[]): void {
    for (const plan of plans)
      assert.doesNotMatch(plan, /stock_movements_unpushed/, `a waiting-movements index in:\n${plan}`);
  }

  test("reading a record's waiting movements by id", async () => {
    const ids = waiting.slice(1000, 1200);
    assertByKey(await plansOf(() => unpushedWithBatch(t.runtime.ctx.db, storeId, ids)));
  });

  test("acknowledging them", async () => {
    const ids = waiting.slice(1200, 1400);
    const plans = await plansOf(() =>
      t.runtime.ctx.db.transaction().execute(async (trx) => {
        assert.equal(await markMovementsPushed(trx, storeId, ids, new Date()), 200);
      }),
    );
    assertByKey(plans);
  });

  test("marking them in flight, and taking the mark off", async () => {
    const ids = waiting.slice(1600, 1800);
    const plans = await plansOf(async () => {
      assert.equal((await markMovementsSent(t.runtime.ctx.db, storeId, ids, new Date(), lease)).size, 200);
      await markMovementsUnsent(t.runtime.ctx.db, storeId, ids);
    });
    assertByKey(plans);
  });

  test("putting them in a batch", async () => {
    const ids = waiting.slice(1400, 1600);
    const plans = await plansOf(async () => {
      const fence = { lease, mark: batchMark(lease.jobId), jobOf: new Map() };
      const assigned = await assignBatches(t.runtime.ctx.db, storeId, [ids], fence);
      assert.equal(assigned.size, 200);
    });
    assertByKey(plans);
  });

  /** A platform report of 40 available and on hand at the item's level at location 1. */
  const reportOf40 = (item: number) => ({
    inventoryItemId: item,
    locationId: 1,
    available: 40,
    onHand: 40,
    committed: 0,
    incoming: 0,
    version: 1,
    updatedAt: new Date(),
  });

  /** The deltas a document of one unit received at the item's level at location 1 acknowledges. */
  const oneUnitReceived = (item: number) => ({
    inventoryItemId: item,
    locationId: 1,
    available: 1,
    onHand: 1,
    incoming: 0,
  });

  test("an acknowledgement's read of other pushes in flight, at levels where more wait", async () => {
    // 200 levels with six movements waiting each (one of them acknowledged below), two of them with
    // one sent alone and in a batch: the read answers those two, by the marks, without walking the
    // 1,200 movements waiting there (it walked them on stock_movements_unpushed_level, and probed each
    // one's batch row, until migration 046).
    const { db } = t.runtime.ctx;
    const items = Array.from({ length: 200 }, (_, i) => 10_000 + i);
    const { rows } = await sql<{ id: number; inventory_item_id: number }>`insert into stock_movements
        (store_id, subject_type, subject_id, inventory_item_id, location_id, available_delta, on_hand_delta, reason)
      select ${storeId}, 'stock_adjustment', 3000 + k, item, 1, 1, 1, 'correction'
      from unnest(${items}::bigint[]) item, generate_series(1, 6) k
      returning id, inventory_item_id`.execute(db);
    await sql`insert into inventory_levels (store_id, inventory_item_id, location_id, available, on_hand,
        unacknowledged)
      select ${storeId}, item, 1, 6, 6, 6 from unnest(${items}::bigint[]) item`.execute(db);
    const byItem = (item: number) =>
      rows.filter((r) => Number(r.inventory_item_id) === item).map((r) => Number(r.id));
    const acknowledged = items.map((item) => byItem(item)[0]);
    await sql`update stock_movements set push_sent_at = now() where id = ${byItem(items[7])[1]}`.execute(db);
    await sql`insert into push_batch_movements (movement_id, store_id, batch_id, in_flight, inventory_item_id, location_id)
      values (${byItem(items[9])[2]}, ${storeId}, nextval('push_batch_ids'), true, ${items[9]}, 1)`.execute(
      db,
    );
    const plans = await plansOf(() =>
      db.transaction().execute(async (trx) => {
        assert.equal(await markMovementsPushed(trx, storeId, acknowledged, new Date()), 200);
        await refreshLevels(
          t.runtime.ctx,
          trx,
          storeId,
          items.map((item) => ({ inventoryItemId: item, locationId: 1 })),
          // The platform reports 40 at items 7, 8 and 9.
          items.slice(7, 10).map(reportOf40),
          items.map(oneUnitReceived),
        );
      }),
    );
    assertByKey(plans);
    // The report is adopted where no other push is in flight (item 8), kept where one is (7 and 9).
    const { rows: levels } = await sql<{
      inventory_item_id: number;
      platform_available: number;
      reported_available: number | null;
      unacknowledged: number;
    }>`select inventory_item_id,
        platform_available, reported_available, unacknowledged from inventory_levels
      where store_id = ${storeId} and inventory_item_id = any(${items.slice(7, 10)}::bigint[])
      order by inventory_item_id`.execute(db);
    assert.deepEqual(
      levels.map((l) => [
        Number(l.inventory_item_id),
        l.platform_available,
        l.reported_available,
        l.unacknowledged,
      ]),
      [
        [items[7], 1, 40, 5],
        [items[8], 40, null, 5],
        [items[9], 1, 40, 5],
      ],
    );
  });

  test("the probes of marks in flight, with push_batch_movements analyzed empty and then filled", async () => {
    // The batch queue is often empty when it is analyzed (pages left, no live row: the planner then
    // costs it as empty however full it is now) and a burst, or an outage's backlog, fills it after.
    // Its in-flight probes must still go through push_batch_movements_in_flight: with the costs' and
    // the acknowledgement's probes on its primary key (fc35398, 30829b0) a drain's backends spent
    // 24 ms a receipt instead of 3 (docs/performance.md, "Pushes and batches").
    const { db } = t.runtime.ctx;
    const items = Array.from({ length: 200 }, (_, i) => 20_000 + i);
    const { rows } = await sql<{ id: number; inventory_item_id: number }>`insert into stock_movements
        (store_id, subject_type, subject_id, inventory_item_id, location_id, available_delta, on_hand_delta,
          unit_cost, unit_cost_currency, reason)
      select ${storeId}, 'purchase_order', 5000 + k, item, 1, 1, 1, 2.5, 'USD', 'received'
      from unnest(${items}::bigint[]) item, generate_series(1, 6) k
      returning id, inventory_item_id`.execute(db);
    await sql`insert into inventory_levels (store_id, inventory_item_id, location_id, available, on_hand,
        unacknowledged)
      select ${storeId}, item, 1, 6, 6, 6 from unnest(${items}::bigint[]) item`.execute(db);
    const batchRows = (ids: readonly number[], inFlight: boolean) =>
      sql`insert into push_batch_movements (movement_id, store_id, batch_id, in_flight, inventory_item_id, location_id)
        select m.id, m.store_id, nextval('push_batch_ids'), ${inFlight}, m.inventory_item_id, m.location_id
        from stock_movements m where m.id = any(${ids}::bigint[])`.execute(db);
    // A burst's batches acknowledged and analyzed: pages, no rows.
    const acknowledgeAll = sql`delete from push_batch_movements where store_id = ${storeId}`;
    await acknowledgeAll.execute(db);
    await batchRows(waiting, false);
    await acknowledgeAll.execute(db);
    await sql`analyze push_batch_movements`.execute(db);
    const { rows: stats } = await sql<{ relpages: number; reltuples: number }>`select relpages, reltuples
      from pg_class where oid = 'push_batch_movements'::regclass`.execute(db);
    assert.ok(stats[0].relpages > 0 && Number(stats[0].reltuples) === 0, JSON.stringify(stats));
    // Then the next burst: every movement batched, the first five of each item in flight.
    const ids = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
    await batchRows(waiting, false);
    const sixth = new Set(
      items.map((item) =>
        Math.max(...rows.filter((r) => Number(r.inventory_item_id) === item).map((r) => Number(r.id))),
      ),
    );
    await batchRows(
      ids.filter((id) => !sixth.has(id)),
      true,
    );
    await batchRows([...sixth], false);

    const costs = [...sixth].map((movementId, i) => ({
      inventoryItemId: items[i],
      movementId,
      unitCost: i % 2 === 0 ? "2.50000000" : "3.00000000",
      currency: "USD",
    }));
    let found = new Map<number, { same: boolean }>();
    const plans = await plansOf(async () => {
      found = await costsInFlightBefore(db, storeId, costs, []);
      await db.transaction().execute((trx) =>
        refreshLevels(
          t.runtime.ctx,
          trx,
          storeId,
          items.map((item) => ({ inventoryItemId: item, locationId: 1 })),
          items.map(reportOf40),
          items.map(oneUnitReceived),
        ),
      );
    });
    const probes = plans.filter((plan) => /push_batch_movements/.test(plan));
    assert.equal(probes.length, 2, plans.join("\n\n"));
    for (const plan of probes) {
      assert.match(plan, /push_batch_movements_in_flight/, plan);
      assert.doesNotMatch(plan, /push_batch_movements_(pkey|batch)|Seq Scan on push_batch_movements/, plan);
    }
    // The costs in flight found: every item's, the same cost at the even ones.
    assert.deepEqual(
      [...found].sort((a, b) => a[0] - b[0]),
      items.map((item, i) => [item, { same: i % 2 === 0 }]),
    );
  });

  /** A statement's value as an SQL literal (EXECUTE takes no parameters of the protocol). */
  function literal(value: unknown): string {
    if (value === null || value === undefined) return "null";
    if (Array.isArray(value)) return `'{${value.map(String).join(",")}}'`;
    if (value instanceof Date) return `'${value.toISOString()}'`;
    if (typeof value === "number" || typeof value === "boolean") return String(value);
    return `'${String(value).replaceAll("'", "''")}'`;
  }

  test("batch rows named by movement, with push_batch_movements analyzed empty and then filled", async () => {
    // The acknowledgement's delete and the in-flight marks' updates name batch rows (and the marks'
    // ledger rows) by movement id. On the store's batch index (or an index of the marks) the ids are a
    // filter, which a generic plan (PGlite keeps statements prepared) compares with every id in turn for
    // each row walked: 907 ms to forget a 6,600-movement batch with 18,200 rows queued, on PostgreSQL.
    // Planned with the values or not, they must find the rows by the movement's key.
    const { db } = t.runtime.ctx;
    const ids = waiting.slice(2000, 2600);
    await sql`delete from push_batch_movements where store_id = ${storeId}`.execute(db);
    await sql`insert into push_batch_movements (movement_id, store_id, batch_id, in_flight, inventory_item_id, location_id)
      select m.id, m.store_id, nextval('push_batch_ids'), false, m.inventory_item_id, m.location_id
      from stock_movements m where m.id = any(${waiting}::bigint[])`.execute(db);
    await sql`delete from push_batch_movements where store_id = ${storeId}`.execute(db);
    await sql`analyze push_batch_movements`.execute(db);
    await sql`insert into push_batch_movements (movement_id, store_id, batch_id, in_flight, inventory_item_id, location_id)
      select m.id, m.store_id, nextval('push_batch_ids'), false, m.inventory_item_id, m.location_id
      from stock_movements m where m.id = any(${waiting}::bigint[])`.execute(db);
    const sent: Array<{ sql: string; parameters: unknown[] }> = [];
    recording = sent;
    try {
      assert.equal((await markMovementsSent(db, storeId, ids, new Date(), lease)).size, 600);
      await markMovementsUnsent(db, storeId, ids);
      await db.transaction().execute(async (trx) => {
        assert.equal(await markMovementsPushed(trx, storeId, ids, new Date(), true), 600);
      });
    } finally {
      recording = null;
    }
    const named = sent.filter((s) => /(update|delete from) push_batch_movements/.test(s.sql));
    assert.equal(named.length, 3, sent.map((s) => s.sql).join("\n\n"));
    const { rows: left } = await sql<{ n: string | number }>`select count(*) as n from push_batch_movements
      where movement_id = any(${ids}::bigint[])`.execute(db);
    assert.equal(Number(left[0].n), 0);
    for (const [i, s] of named.entries()) {
      const custom = await db.executeQuery(CompiledQuery.raw(`explain ${s.sql}`, s.parameters));
      // A generic plan: the statement prepared, planned without its values.
      const plan = await db.connection().execute(async (c) => {
        await c.executeQuery(CompiledQuery.raw("set plan_cache_mode = force_generic_plan"));
        try {
          await c.executeQuery(CompiledQuery.raw(`prepare batch_rows_${i} as ${s.sql}`));
          const args = s.parameters.map(literal).join(", ");
          return await c.executeQuery(CompiledQuery.raw(`explain execute batch_rows_${i}(${args})`));
        } finally {
          await c.executeQuery(CompiledQuery.raw(`deallocate batch_rows_${i}`)).catch(() => {});
          await c.executeQuery(CompiledQuery.raw("reset plan_cache_mode"));
        }
      });
      const text = (r: { rows: unknown[] }) =>
        (r.rows as Array<Record<string, string>>).map((row) => row["QUERY PLAN"]).join("\n");
      const generic = text(plan);
      assert.match(generic, /push_batch_movements_pkey/, generic);
      for (const p of [text(custom), generic])
        assert.doesNotMatch(p, /push_batch_movements_(batch|in_flight)|stock_movements_sent_alone/, p);
    }
  });

  test("whether a record still waits", async () => {
    const plans = await plansOf(async () => {
      const standing = await pushStandingOf(t.runtime.ctx.db, storeId, "stock_adjustment", 1005, 6);
      assert.equal(standing.unpushed, true);
    });
    assertByKey(plans);
  });
});
