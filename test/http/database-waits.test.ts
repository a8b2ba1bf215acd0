import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";

/**
 * SERVER_TIMING=on (src/http/plugins/database-waits.ts): each answer says when its request arrived and
 * how it waited for the embedded database's one connection, so the queue's fairness can be seen from
 * outside (issue 22 item 3): requests asking at once get the connection in the order they came.
 */

const onPglite = !process.env.TEST_DATABASE_URL;

interface Timing {
  arrival: number;
  waitedMs: number;
  turns: number;
  firstTurn: number | null;
  heldMs: number;
  storeTurnMs: number;
}

const SHAPE =
  /^arrival;desc="(\d+)", db-wait;dur=(\d+\.\d);desc="(\d+) turns(?: from (\d+))?", db-hold;dur=(\d+\.\d), store-turn;dur=(\d+\.\d)$/;

function timingOf(header: string | string[] | undefined): Timing {
  const match = SHAPE.exec(String(header));
  assert.ok(match, `server-timing: ${header}`);
  return {
    arrival: Number(match[1]),
    waitedMs: Number(match[2]),
    turns: Number(match[3]),
    firstTurn: match[4] === undefined ? null : Number(match[4]),
    heldMs: Number(match[5]),
    storeTurnMs: Number(match[6]),
  };
}

describe("Server-Timing: waits for the embedded database's connection", () => {
  let t: TestApp;
  let store: TestStore;
  before(async () => {
    t = await startTestApp({ env: { SERVER_TIMING: "on" } });
    store = await t.createStore({ seed: "demo" });
    for (let i = 1; i <= 30; i++) {
      const created = await store.api.post("/v2/suppliers", { name: `Supplier ${i}` });
      assert.equal(created.status, 201);
    }
  });
  after(() => t.close());

  test("every answer carries its arrival and its waits, refusals included", async () => {
    const first = await store.api.get("/v2/suppliers?limit=5");
    assert.equal(first.status, 200);
    const timing = timingOf(first.headers["server-timing"]);
    if (onPglite) {
      assert.ok(timing.turns >= 1, "the list is read from the database");
      assert.ok(timing.firstTurn !== null && timing.firstTurn > 0);
      assert.ok(timing.heldMs > 0);
    } else {
      // A pool has no single queue to count: nothing waited for "the" connection.
      assert.deepEqual([timing.turns, timing.firstTurn, timing.waitedMs, timing.heldMs], [0, null, 0, 0]);
    }

    // The supplier list takes no store turn.
    assert.equal(timing.storeTurnMs, 0);

    const refused = await t.client("Bearer sr2_not-a-key").get("/v2/suppliers");
    assert.equal(refused.status, 401);
    assert.ok(timingOf(refused.headers["server-timing"]).arrival > timing.arrival);
  });

  test("line-heavy reads of one store wait for its turn, and say how long", async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => store.api.get("/v2/purchase_orders?limit=50")),
    );
    for (const answer of answers) assert.equal(answer.status, 200);
    const waits = answers.map((a) => timingOf(a.headers["server-timing"]).storeTurnMs);
    // One at a time within the store (store-turns.ts): later ones waited behind earlier ones (the
    // first's own figure is not 0 on a loaded machine: the process can be descheduled in between).
    assert.ok(Math.max(...waits) > Math.min(...waits), waits.join(" "));
  });

  test("requests asking at once get the connection in the order they arrived", {
    skip: !onPglite,
  }, async () => {
    const count = 24;
    const answers = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        i % 2 === 0 ? store.api.get("/v2/suppliers?limit=50") : store.api.get("/v2/variants?limit=100"),
      ),
    );
    for (const answer of answers) assert.equal(answer.status, 200);
    const timings = answers.map((a) => timingOf(a.headers["server-timing"]));
    // They did queue: all but the first waited for a turn.
    assert.ok(timings.filter((x) => x.waitedMs > 0).length >= count - 1, JSON.stringify(timings));
    const byArrival = [...timings].sort((a, b) => a.arrival - b.arrival);
    const firstTurns = byArrival.map((x) => x.firstTurn);
    assert.deepEqual(
      firstTurns,
      [...firstTurns].sort((a, b) => (a ?? 0) - (b ?? 0)),
      `first turns in arrival order: ${firstTurns.join(" ")}`,
    );
  });
});
