/**
 * A platform push's commits that wait for the disk (issue 22 item 1: the pushes must keep up with 32
 * concurrent receipts). A push claimed its job, had the simulated platform apply the document,
 * acknowledged the movements and completed the job, each a commit that waited for the log to reach
 * the disk (about 8 ms on the benchmark's machine). The job's claim and completion and the
 * acknowledgement may be lost on a crash of the database server without harm (the job runs again;
 * the document goes again under the same key), so they no longer wait; the simulated platform's own
 * commit, which stands for the platform's work, still does. Statements are read at the driver.
 */
import "../helpers/statements.ts";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { receiptWithItsPushQueued } from "../helpers/factories.ts";
import { countStatements } from "../helpers/statements.ts";

const WRITE = /^\s*(insert|update|delete|with)\b/i;
const NOT_WAITING = /set_config\('synchronous_commit', 'off', true\)/;

/**
 * The commits among `all` (every statement, transaction control included, in the order sent) that
 * wait for the disk: a transaction that wrote without turning synchronous_commit off, or a write
 * outside any transaction that does not turn it off itself. Each is named by its first write.
 */
function waitingCommits(all: readonly string[]): string[] {
  const waiting: string[] = [];
  let open: string[] | null = null;
  for (const s of all) {
    if (/^begin\b/i.test(s)) open = [];
    else if (/^commit\b/i.test(s)) {
      const writes = (open ?? []).filter((x) => WRITE.test(x));
      if (writes.length > 0 && !(open ?? []).some((x) => NOT_WAITING.test(x))) waiting.push(writes[0]);
      open = null;
    } else if (open) open.push(s);
    else if (WRITE.test(s) && !NOT_WAITING.test(s)) waiting.push(s);
  }
  return waiting.map((s) => s.slice(0, 60));
}

describe("a platform push's commits", () => {
  let t: TestApp;
  let store: TestStore;

  before(async () => {
    t = await startTestApp();
    store = await t.createStore({ seed: "demo" });
    await t.drain();
  });

  after(() => t.close());

  test("one waits for the disk, the simulated platform's; the job's claim and completion and the acknowledgement do not", async () => {
    const { order } = await receiptWithItsPushQueued(t, store.api, {
      lines: 5,
      received: 2,
      key: "push-commits",
    });
    await t.runtime.ctx.requestLog.flush();

    const { result: ran, all } = await countStatements(() => t.drain());
    assert.equal(ran, 1, "the receipt's push alone");
    const waiting = waitingCommits(all);
    assert.equal(waiting.length, 1, waiting.join("\n"));
    assert.match(waiting[0], /\bsim_\w+/);

    // The push did its work: the receipt is synced and the platform has the stock.
    const after = await store.api.get(`/v2/purchase_orders/${order.id}`);
    expectStatus(after, 200);
    assert.equal(after.body.data.receipts[0].platform_sync.state, "synced");
  });
});
