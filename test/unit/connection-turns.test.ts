import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ConnectionTurns, type Lane } from "../../src/db/pglite-dialect.ts";

/**
 * Turns on the one PGlite connection between the API (foreground), the worker (background) and the
 * hot lookups every request starts with (priority).
 */

const nextTurnOfTheLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function harness(backgroundShare?: number) {
  let clock = 0;
  const turns = new ConnectionTurns(() => clock, undefined, backgroundShare);
  const served: string[] = [];
  let asked = 0;
  const ask = (lane: Lane, name: string, shared = false) => {
    asked++;
    return turns.acquire(lane, shared).then(() => served.push(name));
  };
  /** The holder keeps the connection `ms`, releases it, and the next one is handed it. */
  const hold = async (ms: number) => {
    clock += ms;
    turns.release();
    await nextTurnOfTheLoop();
    await nextTurnOfTheLoop();
  };
  /** Everyone still waiting is served and the connection left free (no wait outlives its test). */
  const finish = async () => {
    while (served.length < asked) await hold(1);
    await hold(1);
  };
  return { turns, served, ask, hold, finish };
}

describe("ConnectionTurns", () => {
  test("a free connection is taken at once; each lane is served first come, first served", async () => {
    const { served, ask, hold } = harness();
    await ask("foreground", "f1");
    void ask("foreground", "f2");
    void ask("foreground", "f3");
    await hold(5);
    await hold(5);
    assert.deepEqual(served, ["f1", "f2", "f3"]);
    await hold(5);
    // Nobody waiting: the next caller takes it at once.
    await ask("background", "b1");
    assert.deepEqual(served, ["f1", "f2", "f3", "b1"]);
  });

  test("while both lanes wait, the one that held the connection for less time goes next", async () => {
    const { served, ask, hold, finish } = harness();
    await ask("foreground", "f1");
    for (const name of ["f2", "f3", "f4"]) void ask("foreground", name);
    for (const name of ["b1", "b2", "b3"]) void ask("background", name);
    await hold(30); // f1 held 30 ms: the background is 30 behind
    await hold(10); // b1: 20 behind
    await hold(10); // b2: 10 behind
    await hold(10); // b3: even; the background queue is empty
    await hold(10); // f2
    await hold(10); // f3
    assert.deepEqual(served, ["f1", "b1", "b2", "b3", "f2", "f3", "f4"]);
    await finish();
  });

  test("a lane's lead is bounded: a long holder does not buy its rival unlimited turns", async () => {
    const { served, ask, hold, finish } = harness();
    await ask("foreground", "f1");
    void ask("foreground", "f2");
    for (let i = 1; i <= 30; i++) void ask("background", `b${i}`);
    await hold(10_000); // f1 held 10 s; the lead counts at most 200 ms of it
    for (let i = 0; i < 20; i++) await hold(10); // the background catches up 200 ms
    await hold(10);
    // b1..b20 repaid the bounded lead; then the foreground's turn came round, not after all 30.
    assert.deepEqual(served.slice(0, 22), ["f1", ...Array.from({ length: 20 }, (_, i) => `b${i + 1}`), "f2"]);
    await finish();
  });

  test("with a background share of a fifth, the API holds the connection four times as long as the worker while both wait", async () => {
    const { served, ask, hold, finish } = harness(0.2);
    await ask("foreground", "f1");
    for (let i = 2; i <= 9; i++) void ask("foreground", `f${i}`);
    for (const name of ["b1", "b2", "b3"]) void ask("background", name);
    for (let i = 0; i < 11; i++) await hold(10);
    // Each 10 ms of the worker's counts as 40 of the API's (an even split would alternate them).
    assert.deepEqual(served, ["f1", "b1", "f2", "f3", "f4", "f5", "b2", "f6", "f7", "f8", "f9", "b3"]);
    await finish();
  });

  test("with a background share of a fifth, the worker's bound is weighted too: a long push buys the API four times the time", async () => {
    const { served, ask, hold, finish } = harness(0.2);
    await ask("background", "b1");
    for (let i = 1; i <= 100; i++) void ask("foreground", `f${i}`);
    void ask("background", "b2");
    await hold(10_000); // b1 held 10 s: the lead counts at most 4 × 200 ms of it
    for (let i = 0; i < 81; i++) await hold(10);
    // f1..f80 repaid the 800 ms; f81 went at an even lead; then the worker again, not after all 100.
    assert.deepEqual(served.slice(0, 83), ["b1", ...Array.from({ length: 81 }, (_, i) => `f${i + 1}`), "b2"]);
    await finish();
  });

  test("the next holder gets the connection on a later turn of the event loop", async () => {
    const { turns, served, ask, finish } = harness();
    await ask("foreground", "f1");
    void ask("background", "b1");
    turns.release();
    // Not within the releasing promise chain: sockets are read before the next transaction runs.
    for (let i = 0; i < 10; i++) await Promise.resolve();
    assert.deepEqual(served, ["f1"]);
    await nextTurnOfTheLoop();
    await Promise.resolve();
    assert.deepEqual(served, ["f1", "b1"]);
    await finish();
  });

  test("a priority statement goes before every waiting turn of either lane, but not before the holder", async () => {
    const { served, ask, hold, finish } = harness();
    await ask("foreground", "f1");
    void ask("foreground", "f2");
    void ask("foreground", "f3");
    void ask("background", "b1");
    void ask("priority", "p1");
    assert.deepEqual(served, ["f1"], "the holder keeps the connection until it releases it");
    await hold(5);
    assert.deepEqual(served, ["f1", "p1"]);
    void ask("priority", "p2"); // arrives while p1 holds: still ahead of f2, f3 and b1
    await hold(1);
    await hold(1);
    assert.deepEqual(served, ["f1", "p1", "p2", "b1"]);
    await finish();
    assert.deepEqual(served, ["f1", "p1", "p2", "b1", "f2", "f3"]);
  });

  test("priority turns in a row are bounded while others wait, and count as foreground time", async () => {
    const { served, ask, hold, finish } = harness();
    await ask("foreground", "f1");
    void ask("background", "b1");
    for (let i = 1; i <= 10; i++) void ask("priority", `p${i}`);
    await hold(1);
    for (let i = 0; i < 8; i++) await hold(1);
    // Eight priority turns in a row, then the waiting background's, then the remaining priority ones.
    assert.deepEqual(served, ["f1", ...Array.from({ length: 8 }, (_, i) => `p${i + 1}`), "b1"]);
    await hold(1);
    await hold(1);
    assert.deepEqual(served.slice(10), ["p9", "p10"]);
    // f1 and p1..p9 held 10 ms as foreground, b1 1 ms: once p10 is done, the background goes first.
    void ask("foreground", "f2");
    void ask("background", "b2");
    await hold(1);
    assert.deepEqual(served.slice(12), ["b2"]);
    await finish();
  });

  test("single statements (shared turns) go to the database together; a transaction waits for all", async () => {
    const { served, ask, hold, finish } = harness();
    await ask("priority", "p1", true);
    // In flight together: nobody waits, so each joins at once.
    await ask("priority", "p2", true);
    await ask("foreground", "s1", true);
    void ask("foreground", "t1"); // a transaction: waits until every shared statement is answered
    void ask("foreground", "s2", true); // behind t1 in its lane: joins nothing it would pass
    await hold(1);
    await hold(1);
    assert.deepEqual(served, ["p1", "p2", "s1"]);
    await hold(1); // the last of the three answered
    assert.deepEqual(served, ["p1", "p2", "s1", "t1"]);
    await hold(1);
    assert.deepEqual(served, ["p1", "p2", "s1", "t1", "s2"]);
    await finish();
  });

  test("waiting single statements are handed the connection together, priority ones bounded while others wait", async () => {
    const { served, ask, hold, finish } = harness();
    await ask("foreground", "t1");
    void ask("background", "b1");
    for (let i = 1; i <= 10; i++) void ask("priority", `p${i}`, true);
    await hold(1); // t1 done: eight priority statements at once, no more while b1 waits
    assert.deepEqual(served, ["t1", ...Array.from({ length: 8 }, (_, i) => `p${i + 1}`)]);
    void ask("priority", "p11", true); // arrives while the eight are in flight: behind p9 and p10
    for (let i = 0; i < 7; i++) await hold(1);
    assert.equal(served.length, 9, "b1 waits for the eighth answer");
    await hold(1);
    assert.deepEqual(served.slice(9), ["b1"]);
    await hold(1); // b1 done: the rest of the priority queue together
    assert.deepEqual(served.slice(10), ["p9", "p10", "p11"]);
    await finish();
  });

  test("a priority statement joins those in flight while others wait, at most MAX_PRIORITY_RUN", async () => {
    const { served, ask, hold, finish } = harness();
    await ask("foreground", "s1", true);
    void ask("background", "b1");
    for (let i = 1; i <= 9; i++) void ask("priority", `p${i}`, true);
    await nextTurnOfTheLoop();
    assert.deepEqual(served, ["s1", ...Array.from({ length: 8 }, (_, i) => `p${i + 1}`)]);
    for (let i = 0; i < 9; i++) await hold(1);
    assert.deepEqual(served.slice(9), ["b1"]);
    await finish();
    assert.deepEqual(served.slice(10), ["p9"]);
  });

  test("a wait that times out is refused and leaves the queue; one handed the connection is not", async (t) => {
    // Only setTimeout is faked: the hand-over still happens on a real later turn of the loop.
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const turns = new ConnectionTurns(() => 0, 20);
    await turns.acquire("foreground");
    const refused = assert.rejects(turns.acquire("background"), /timed out/);
    t.mock.timers.tick(20); // nobody released: the waiter gives up and leaves the queue
    await refused;
    const waiting = turns.acquire("background");
    turns.release(); // handed over, to run on the next turn of the loop...
    t.mock.timers.tick(20); // ...when its timer fires first: the connection is still this caller's
    await waiting;
    turns.release();
    await turns.acquire("foreground"); // free again: nobody holds it
    turns.release();
  });
});
