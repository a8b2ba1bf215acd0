import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { after, describe, it } from "node:test";
import { Worker } from "node:worker_threads";
import { renderPurchaseOrderPdf } from "../../src/domain/documents/purchase-order-pdf.ts";
import type { PurchaseOrderDocument } from "../../src/domain/documents/purchase-order-view.ts";
import { PER_STORE, RENDER_FLOOR_MS, RenderPool } from "../../src/domain/documents/render-pool.ts";
import {
  RAISED_NICENESS,
  RENDER_NICENESS,
  type RenderProcess,
  startRenderProcess,
} from "../../src/domain/documents/render-process.ts";
import { AppError } from "../../src/domain/errors.ts";

function order(number: string, lineCount: number): PurchaseOrderDocument {
  return {
    number,
    status: "draft",
    notes: null,
    expected_at: null,
    ordered_at: null,
    created_at: "2026-03-02T10:00:00.000Z",
    updated_at: "2026-03-02T10:00:00.000Z",
    location: { id: 1, name: "Warehouse" },
    ship_to_address: null,
    tax: null,
    totals: { currency: "EUR", subtotal: "10.00", charges: "0.00", tax: "0.00", total: "10.00" },
    lines: Array.from({ length: lineCount }, (_, i) => ({
      position: i + 1,
      sku: `SKU-${i + 1}`,
      supplier_sku: null,
      product_title: `Product ${i + 1}`,
      variant_title: null,
      quantity: 1,
      received_quantity: 0,
      outstanding_quantity: 1,
      unit_cost: "10.00",
      discount_percent: null,
      line_total: "10.00",
    })),
    charges: [],
    store: { name: "Łódź Store", timezone: "Europe/Warsaw" },
    supplier: {
      name: "Supplier",
      company_name: null,
      contact_name: null,
      email: null,
      phone: null,
      address: null,
    },
    bill_to: null,
  };
}

/** Each thread of a process by id with its nice value (field 19 of /proc/<pid>/task/<tid>/stat). */
function threadNiceness(pid = process.pid): Map<number, number> {
  const nice = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      // The fields after the name in parentheses (which may hold spaces) start at field 3.
      nice.set(Number(tid), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return nice;
}

/** Real render processes, each kept in `renderers` as the pool starts it (to read its pid). */
function recordedRenderers() {
  const renderers: RenderProcess[] = [];
  const startThread = () => {
    const renderer = startRenderProcess();
    renderers.push(renderer);
    return renderer;
  };
  return { renderers, startThread };
}

describe("PDF render pool", () => {
  const pools: RenderPool[] = [];
  after(async () => {
    for (const pool of pools) await pool.close();
  });

  it("renders in its process exactly the bytes the renderer makes in-process", async () => {
    const pool = new RenderPool(1);
    pools.push(pool);
    const document = order("PO-1", 30);
    const threaded = await pool.render(1, document, false, true);
    assert.ok(threaded.equals(await renderPurchaseOrderPdf(document, { receivingCopy: false })));
    const receiving = await pool.render(1, document, true, true);
    assert.ok(receiving.equals(await renderPurchaseOrderPdf(document, { receivingCopy: true })));
    assert.equal(pool.heldBy(1), 0);
  });

  it("on Linux every thread of a PDF renderer's process runs at its niceness, this process's threads at theirs", {
    skip: process.platform !== "linux",
  }, async (t) => {
    const own = threadNiceness().get(process.pid) as number;
    if (own >= RENDER_NICENESS) {
      t.skip(`the process already runs at niceness ${own}`);
      return;
    }
    const ours = threadNiceness();
    const { renderers, startThread } = recordedRenderers();
    const pool = new RenderPool(1, { startThread });
    pools.push(pool);
    const pdf = await pool.render(1, order("PO-NICE", 3), false, true);
    assert.equal(pdf.subarray(0, 5).toString(), "%PDF-");
    assert.equal(renderers.length, 1);
    const pid = renderers[0].pid as number;
    // V8's background threads start before the renderer's code runs; it lowers them too.
    const theirs = [...threadNiceness(pid).values()];
    assert.ok(theirs.length >= 2, JSON.stringify(theirs));
    assert.deepEqual(new Set(theirs), new Set([RENDER_NICENESS]));
    for (const [tid, nice] of threadNiceness())
      if (ours.has(tid)) assert.equal(nice, ours.get(tid), `thread ${tid}`);
    await pool.close();
    assert.equal(existsSync(`/proc/${pid}`), false, "the renderer ends with the pool");
  });

  it("a renderer's process that dies fails the render it held; the next render gets a new process", {
    timeout: 60_000,
  }, async () => {
    const { renderers, startThread } = recordedRenderers();
    const pool = new RenderPool(1, { startThread });
    pools.push(pool);
    const held = pool.render(5, order("PO-K", 400), false, true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(renderers[0].pid as number, "SIGKILL");
    await assert.rejects(held, /the PDF thread exited \(SIGKILL\)/);
    assert.equal(pool.heldBy(5), 0);
    const pdf = await pool.render(5, order("PO-L", 3), false, true);
    assert.equal(pdf.subarray(0, 5).toString(), "%PDF-");
    assert.equal(renderers.length, 2);
  });

  it(`refuses a store's render beyond ${PER_STORE} at once with 429 rate_limited and Retry-After; other stores and the mail job still get theirs`, async () => {
    const pool = new RenderPool(1);
    pools.push(pool);
    const held = Array.from({ length: PER_STORE }, (_, i) =>
      pool.render(7, order(`PO-${i}`, 5), false, true),
    );
    assert.equal(pool.heldBy(7), PER_STORE);
    assert.throws(
      () => pool.render(7, order("PO-C", 5), false, true),
      (error: unknown) =>
        error instanceof AppError &&
        error.code === "rate_limited" &&
        error.status === 429 &&
        error.headers?.["retry-after"] === "2",
    );
    const otherStore = pool.render(8, order("PO-D", 5), false, true);
    const mailJob = pool.render(7, order("PO-E", 5), false, false);
    for (const pdf of await Promise.all([...held, otherStore, mailJob]))
      assert.equal(pdf.subarray(0, 5).toString(), "%PDF-");
    assert.equal(pool.heldBy(7), 0);
    assert.equal(pool.heldBy(8), 0);
    // Room again once the store's renders are done.
    assert.equal((await pool.render(7, order("PO-C", 5), false, true)).subarray(0, 5).toString(), "%PDF-");
  });

  // A render that ends without an answer must not keep its thread nor its store's place: before, a
  // document that could not be sent to the thread left the thread busy for good (every later render
  // waited forever), and a thread that never answered kept both; PER_STORE of those and the store's
  // every PDF was 429.
  it("a document that cannot be sent to a thread fails that render and keeps neither the thread nor the store's place", {
    timeout: 60_000,
  }, async () => {
    const pool = new RenderPool(1);
    pools.push(pool);
    const unsendable = { ...order("PO-X", 3), print: () => "a function cannot be copied to a thread" };
    for (let i = 0; i < PER_STORE + 1; i++)
      await assert.rejects(
        pool.render(3, unsendable as unknown as PurchaseOrderDocument, false, true),
        /could not be cloned/,
      );
    assert.equal(pool.heldBy(3), 0);
    // The one thread is free: the next render of the store is made, not refused nor left waiting.
    const pdf = await pool.render(3, order("PO-Y", 3), false, true);
    assert.equal(pdf.subarray(0, 5).toString(), "%PDF-");
    assert.equal(pool.heldBy(3), 0);
  });

  it("a thread that answers nothing within the render time limit is stopped; its render fails and the queue goes on", {
    timeout: 60_000,
  }, async () => {
    // The first thread takes renders and never answers; the ones after it answer at once with
    // stand-in bytes.
    const threads: Worker[] = [];
    const startThread = () => {
      const code =
        threads.length === 0
          ? "require('node:worker_threads').parentPort.on('message', () => {});"
          : `const { parentPort } = require('node:worker_threads');
             parentPort.on('message', (m) => parentPort.postMessage({ id: m.id, pdf: new TextEncoder().encode('%PDF-stand-in') }));`;
      const worker = new Worker(code, { eval: true });
      threads.push(worker);
      return worker;
    };
    const pool = new RenderPool(1, { timeoutMs: 300, startThread });
    pools.push(pool);
    const stuck = pool.render(4, order("PO-S", 3), false, true);
    const queued = pool.render(4, order("PO-Q", 3), false, true);
    assert.equal(pool.heldBy(4), 2);
    await assert.rejects(stuck, /answered nothing in 300 ms/);
    assert.equal((await queued).toString(), "%PDF-stand-in");
    assert.equal(pool.heldBy(4), 0);
    assert.equal(threads.length, 2, "the silent thread was replaced");
    assert.equal(threads[0].threadId, -1, "the silent thread was stopped");
  });

  it(`a render not finished ${RENDER_FLOOR_MS} ms after it was asked for has its process raised to niceness ${RAISED_NICENESS} until it ends, not before; the next render starts at ${RENDER_NICENESS} again`, {
    skip: process.platform !== "linux" || process.getuid?.() !== 0,
    timeout: 60_000,
  }, async (t) => {
    if ((threadNiceness().get(process.pid) as number) >= RENDER_NICENESS) {
      t.skip("the process already runs at the renderers' niceness");
      return;
    }
    const floorMs = 1500;
    const { renderers, startThread } = recordedRenderers();
    const pool = new RenderPool(1, { startThread, floorMs });
    pools.push(pool);
    const nicenessOf = (pid: number) => new Set(threadNiceness(pid).values());
    // The process runs (and a quick render is never raised, however long the host takes for it: the
    // pool lowers it again at its end).
    await pool.render(1, order("PO-WARM", 3), false, true);
    const pid = renderers[0].pid as number;
    assert.deepEqual(nicenessOf(pid), new Set([RENDER_NICENESS]));
    // A render held: the process stopped before it reads the document.
    const asked = performance.now();
    const held = pool.render(1, order("PO-HELD", 20), false, true);
    process.kill(pid, "SIGSTOP");
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const before = nicenessOf(pid);
      if (performance.now() - asked < floorMs)
        assert.deepEqual(before, new Set([RENDER_NICENESS]), "not before");
      await new Promise((resolve) => setTimeout(resolve, floorMs + 300 - (performance.now() - asked)));
      assert.deepEqual(nicenessOf(pid), new Set([RAISED_NICENESS]), "every thread raised at the floor");
    } finally {
      process.kill(pid, "SIGCONT");
    }
    assert.equal((await held).subarray(0, 5).toString(), "%PDF-");
    assert.deepEqual(nicenessOf(pid), new Set([RENDER_NICENESS]), "lowered again for the next render");
    assert.equal(renderers.length, 1);
  });

  it("a render's floor: raised once past it and lowered at its end; a quick render never; a render that waited past it in the queue at once", {
    timeout: 60_000,
  }, async () => {
    // Stand-in threads that answer after the ms a document's notes give, recording what the pool sets them to and when.
    const calls: Array<{ niceness: number; at: number }> = [];
    const start = performance.now();
    const startThread = () => {
      const worker = new Worker(
        `const { parentPort } = require('node:worker_threads');
         parentPort.on('message', (m) => setTimeout(
           () => parentPort.postMessage({ id: m.id, pdf: new TextEncoder().encode('%PDF-stand-in') }),
           m.document.notes === null ? 0 : Number(m.document.notes)));`,
        { eval: true },
      );
      return Object.assign(worker, {
        renice: (niceness: number) => {
          calls.push({ niceness, at: performance.now() - start });
          return true;
        },
      });
    };
    const floorMs = 600;
    const pool = new RenderPool(1, { startThread, floorMs });
    pools.push(pool);
    const render = (ms: number | null) =>
      pool.render(6, { ...order("PO-F", 1), notes: ms === null ? null : String(ms) }, false, false);
    await render(null); // the thread started (its start counts as the render's wait)
    calls.length = 0;
    for (let i = 0; i < 3; i++) await render(null);
    await new Promise((resolve) => setTimeout(resolve, floorMs + 200));
    assert.equal(calls.length, 0, "quick renders are never raised");
    const heldFrom = performance.now() - start;
    // One held 1.5 s, one of 0.3 s queued behind it: the first is raised at its floor and lowered at its end;
    // the second has waited past its floor by then, and is raised as it starts.
    await Promise.all([render(1500), render(300)]);
    assert.deepEqual(
      calls.map((c) => c.niceness),
      [RAISED_NICENESS, RENDER_NICENESS, RAISED_NICENESS, RENDER_NICENESS],
    );
    assert.ok(calls[0].at - heldFrom >= floorMs - 5, JSON.stringify({ calls, heldFrom }));
    assert.ok(calls[1].at - heldFrom >= 1500 - 5, JSON.stringify({ calls, heldFrom }));
    assert.ok(calls[2].at - calls[1].at < 250, JSON.stringify({ calls, heldFrom }));
  });

  it("takes waiting renders fairly: another store's PDF goes before the rest of a busy store's queue", async () => {
    const pool = new RenderPool(1);
    pools.push(pool);
    const finished: string[] = [];
    const render = (store: number, number: string) =>
      pool.render(store, order(number, 40), false, false).then(() => finished.push(number));
    await Promise.all([render(1, "B1"), render(1, "B2"), render(1, "B3"), render(2, "A1")]);
    assert.deepEqual(finished, ["B1", "A1", "B2", "B3"]);
  });
});
