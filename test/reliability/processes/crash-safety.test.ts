/**
 * Crash safety on PostgreSQL: 300 writes (180 receipts, 60 stock adjustments created and applied),
 * each with an Idempotency-Key, from 6 concurrent clients, while the service process (API and
 * in-process workers) is killed with SIGKILL at random moments and restarted. Each client retries its
 * request with the same key until it gets a final answer. Afterwards every request took effect
 * exactly once, the platform-side levels equal the snapshot plus the stock ledger, every event reached
 * the HTTPS receiver at least once, and no job is stuck or failed.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { makePki, type Pki } from "../../helpers/pki.ts";
import { createDatabase, type TestDatabase } from "../helpers/database.ts";
import { sleep } from "../helpers/http.ts";
import { freePort, ServiceProcess } from "../helpers/processes.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import {
  assertLevelsMatchLedger,
  createShop,
  eventWatermark,
  jobReport,
  movementWatermark,
  newRetryStats,
  orderedPurchaseOrders,
  platformLevels,
  pushCount,
  sendUntilFinal,
  subscribe,
  undeliveredEvents,
  waitForDrained,
} from "../helpers/scenario.ts";

const RECEIPTS = 180;
const ADJUSTMENTS = 60; // each is two requests: create the draft, apply it
const CLIENTS = 6;
const VARIANTS = 8;
const ORDERS = 3;
/** Kills of the running service; after the last one it stays up so the writes can finish. */
const KILLS = 5;

describe("crash safety: SIGKILL under write load (PostgreSQL)", () => {
  let pki: Pki;
  let receiver: Receiver;
  let db: TestDatabase;
  let server: ServiceProcess;

  before(async () => {
    pki = makePki();
    receiver = await startReceiver(pki);
    db = await createDatabase();
    server = new ServiceProcess({
      kind: "server",
      name: "crash-server",
      databaseUrl: db.url,
      port: await freePort(),
      env: { NODE_EXTRA_CA_CERTS: pki.caFile },
    });
    await server.start();
  });

  after(async () => {
    await server?.stop();
    await receiver?.close();
    await db?.drop();
    pki?.dispose();
  });

  test("300 idempotent writes through random kills take effect exactly once", {
    timeout: 300_000,
  }, async (t) => {
    const base = () => server.baseUrl;
    const shop = await createShop(base, { name: "Crash Shop" });
    const sinceSeq = await eventWatermark(db, shop.id);
    await subscribe(shop.api, `${receiver.url}/hooks/crash`);
    const variants = shop.variants.slice(0, VARIANTS);
    assert.equal(variants.length, VARIANTS);
    const orders = await orderedPurchaseOrders(shop, variants, ORDERS, 10_000);
    await waitForDrained(db, 60_000);
    const initial = await platformLevels(shop.admin, shop.id);
    const watermark = await movementWatermark(db, shop.id);

    // The work: receipts of 1 + 2 units on two lines of an order, and adjustments of +3 or -1.
    type Task = { kind: "receipt"; i: number } | { kind: "adjustment"; i: number };
    const tasks: Task[] = [];
    for (let i = 0; i < RECEIPTS; i++) tasks.push({ kind: "receipt", i });
    for (let i = 0; i < ADJUSTMENTS; i++)
      tasks.splice(Math.floor((i * tasks.length) / ADJUSTMENTS) + i, 0, { kind: "adjustment", i });
    const expectedReceived = new Map<number, number>(); // line id -> units
    const receiptBody = (i: number) => {
      const order = orders[i % ORDERS];
      const a = order.lines[i % VARIANTS];
      const b = order.lines[(i + 3) % VARIANTS];
      return {
        order: order.id,
        body: {
          lines: [
            { line_id: a.id, quantity: 1 },
            { line_id: b.id, quantity: 2 },
          ],
        },
      };
    };
    for (let i = 0; i < RECEIPTS; i++) {
      for (const line of receiptBody(i).body.lines)
        expectedReceived.set(line.line_id, (expectedReceived.get(line.line_id) ?? 0) + line.quantity);
    }
    const adjustmentBody = (i: number) => ({
      location_id: shop.locations[i % 2].id,
      reason: "correction",
      note: `crash ${i}`,
      lines: [{ variant_id: variants[(i * 5) % VARIANTS].id, delta: i % 2 === 0 ? 3 : -1 }],
    });

    const stats = newRetryStats();
    const receiptIds = new Set<number>();
    const adjustmentIds = new Set<number>();
    const appliedIds = new Set<number>();
    let next = 0;
    let completed = 0;
    let done = false;
    const started = Date.now();
    const runClient = async () => {
      while (next < tasks.length) {
        const task = tasks[next++];
        if (task.kind === "receipt") {
          const { order, body } = receiptBody(task.i);
          const res = await sendUntilFinal(
            shop.api,
            "post",
            `/v2/purchase_orders/${order}/receipts`,
            body,
            `receipt-${task.i}`,
            stats,
          );
          assert.equal(res.status, 201, `receipt ${task.i}: ${res.text}`);
          receiptIds.add(res.body.data.id);
          completed++;
        } else {
          const created = await sendUntilFinal(
            shop.api,
            "post",
            "/v2/stock_adjustments",
            adjustmentBody(task.i),
            `adjustment-${task.i}`,
            stats,
          );
          assert.equal(created.status, 201, `adjustment ${task.i}: ${created.text}`);
          adjustmentIds.add(created.body.data.id);
          const applied = await sendUntilFinal(
            shop.api,
            "post",
            `/v2/stock_adjustments/${created.body.data.id}/apply`,
            {},
            `apply-${task.i}`,
            stats,
          );
          assert.equal(applied.status, 200, `apply ${task.i}: ${applied.text}`);
          assert.equal(applied.body.data.status, "applied");
          appliedIds.add(applied.body.data.id);
          completed++;
        }
      }
    };
    // Kill the whole service (API and its workers) at random moments, 0.3 to 2 s after each restart,
    // and restart it at once; after the last kill it stays up so the writes can finish.
    let kills = 0;
    const writesAtKill: number[] = [];
    const chaos = (async () => {
      while (!done && kills < KILLS) {
        await sleep(300 + Math.random() * 1700);
        if (done) break;
        await server.kill("SIGKILL");
        kills++;
        writesAtKill.push(completed);
        await server.start();
      }
    })();
    try {
      await Promise.all(Array.from({ length: CLIENTS }, runClient));
    } finally {
      done = true;
      await chaos;
    }
    const writeMs = Date.now() - started;
    const drainMs = await waitForDrained(db, 150_000);

    // Exactly once: one receipt per key, one adjustment per create key, each applied once.
    assert.equal(stats.requests, RECEIPTS + 2 * ADJUSTMENTS);
    assert.equal(receiptIds.size, RECEIPTS);
    assert.equal(adjustmentIds.size, ADJUSTMENTS);
    assert.equal(appliedIds.size, ADJUSTMENTS);
    const [counts] = await db.query(
      `select (select count(*) from receipts where store_id = $1) as receipts,
         (select count(*) from stock_adjustments where store_id = $1) as adjustments,
         (select count(*) from stock_adjustments where store_id = $1 and status = 'applied') as applied,
         (select count(*) from stock_movements where store_id = $1 and subject_type = 'receipt') as receipt_movements,
         (select count(*) from stock_movements where store_id = $1 and subject_type = 'stock_adjustment') as adjustment_movements,
         (select coalesce(sum(available_delta), 0) from stock_movements where store_id = $1 and subject_type = 'stock_adjustment') as adjusted_units`,
      [shop.id],
    );
    assert.deepEqual(
      { receipts: counts.receipts, adjustments: counts.adjustments, applied: counts.applied },
      { receipts: RECEIPTS, adjustments: ADJUSTMENTS, applied: ADJUSTMENTS },
    );
    assert.equal(counts.receipt_movements, RECEIPTS * 2);
    assert.equal(counts.adjustment_movements, ADJUSTMENTS);
    assert.equal(Number(counts.adjusted_units), (ADJUSTMENTS / 2) * 3 - ADJUSTMENTS / 2);
    for (const order of orders) {
      const got = await shop.api.get(`/v2/purchase_orders/${order.id}`);
      assert.equal(got.status, 200);
      for (const line of got.body.data.lines as Array<{ id: number; received_quantity: number }>) {
        assert.equal(line.received_quantity, expectedReceived.get(line.id) ?? 0, `line ${line.id}`);
      }
      assert.equal(got.body.data.receipts.length, RECEIPTS / ORDERS);
    }

    // The platform saw every movement exactly once, and every record says so.
    const ledger = await assertLevelsMatchLedger(db, shop.admin, shop.id, initial, watermark);
    const pushes = await pushCount(db, shop.id);
    assert.equal(pushes.movementsPushed, pushes.movements, "every movement in exactly one platform document");
    assert.equal(pushes.acknowledged, pushes.movements);
    const [sync] = await db.query(
      "select count(*) as unsynced from platform_sync_states where store_id = $1 and state <> 'synced'",
      [shop.id],
    );
    assert.equal(Number(sync.unsynced), 0);

    // Every event reached the receiver at least once.
    const received = new Set(receiver.requests.map((r) => r.eventId));
    const coverage = await undeliveredEvents(db, shop.id, received, sinceSeq);
    assert.deepEqual(coverage.missing, [], "events never delivered");

    // No job stuck or failed.
    const jobs = await jobReport(db);
    assert.equal(jobs.expiredLeases, 0);
    assert.equal(jobs.byState.running ?? 0, 0);
    assert.deepEqual(jobs.failed, []);

    const pairs = new Set(receiver.requests.map((r) => `${r.eventId}/${r.deliveryId}`));
    const figures = {
      requests: stats.requests,
      attempts: stats.attempts,
      kills,
      writesAtKill,
      meanRestartMs: Math.round(
        server.startupMs.slice(1).reduce((a, b) => a + b, 0) / Math.max(1, server.startupMs.length - 1),
      ),
      connectionErrors: stats.netErrors,
      serverErrors: stats.serverErrors,
      inProgress409: stats.inProgress,
      replayed: stats.replayed,
      maxResponseMs: Math.round(stats.maxMs),
      writePhaseMs: writeMs,
      drainMs,
      movements: ledger.movements,
      levelsChecked: ledger.levels,
      eventsExpected: coverage.expected,
      deliveriesReceived: receiver.requests.length,
      duplicateDeliveries: receiver.requests.length - received.size,
      repeatedDeliveryIds: receiver.requests.length - pairs.size,
      jobs: jobs.total,
      jobsReclaimed: jobs.reclaimed,
    };
    t.diagnostic(`figures ${JSON.stringify(figures)}`);
    assert.equal(figures.repeatedDeliveryIds, 0, "a delivery attempt was sent twice");
    assert.ok(kills >= 3, `only ${kills} kills happened`);
  });
});
