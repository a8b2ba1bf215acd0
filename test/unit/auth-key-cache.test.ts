import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AuthKeyCache } from "../../src/http/plugins/auth-cache.ts";

/**
 * The authentication cache: a key's row is kept only while nothing authentication reads was written,
 * and a row read across a write is not kept (a revocation that commits while a lookup is under way
 * must bite on the next request). With a bound (PostgreSQL, whose rows other processes write too), a
 * row answers only for that long after its read began.
 */

interface Row {
  key_id: number;
  revoked: boolean;
}

function harness(maxKeys?: number, maxAgeMs?: number) {
  let writes = 0;
  let now = 5_000;
  const cache = new AuthKeyCache<Row>(() => writes, { maxKeys, maxAgeMs, now: () => now });
  const db = new Map<string, Row>();
  let reads = 0;
  const read = (hash: string) => async () => {
    reads++;
    const row = db.get(hash);
    return row && { ...row };
  };
  return {
    cache,
    db,
    reads: () => reads,
    write: () => writes++,
    advance: (ms: number) => {
      now += ms;
    },
    lookup: (hash: string) => cache.lookup(hash, read(hash)),
  };
}

describe("AuthKeyCache", () => {
  test("a key read once is answered without reading again until something is written", async () => {
    const h = harness();
    h.db.set("a", { key_id: 1, revoked: false });
    assert.deepEqual(await h.lookup("a"), { key_id: 1, revoked: false });
    assert.deepEqual(await h.lookup("a"), { key_id: 1, revoked: false });
    assert.equal(h.reads(), 1);
    h.db.set("a", { key_id: 1, revoked: true });
    h.write();
    assert.deepEqual(await h.lookup("a"), { key_id: 1, revoked: true });
    assert.equal(h.reads(), 2);
    assert.equal(h.cache.size, 1);
  });

  test("a row read while a write happened serves its request but is not kept", async () => {
    const h = harness();
    h.db.set("a", { key_id: 1, revoked: false });
    let finishRead!: () => void;
    const readUnderWay = h.cache.lookup("a", async () => {
      const row = { key_id: 1, revoked: false };
      await new Promise<void>((resolve) => {
        finishRead = resolve;
      });
      return row;
    });
    // The revocation commits after the lookup read the row, before the lookup's request went on.
    h.db.set("a", { key_id: 1, revoked: true });
    h.write();
    finishRead();
    assert.deepEqual(await readUnderWay, { key_id: 1, revoked: false });
    assert.equal(h.cache.size, 0);
    assert.deepEqual(await h.lookup("a"), { key_id: 1, revoked: true });
  });

  test("an unknown key is not kept: a key created after is found at once", async () => {
    const h = harness();
    assert.equal(await h.lookup("new"), undefined);
    assert.equal(h.cache.size, 0);
    h.db.set("new", { key_id: 2, revoked: false });
    assert.deepEqual(await h.lookup("new"), { key_id: 2, revoked: false });
  });

  test("kept rows are frozen, and the oldest goes past the bound", async () => {
    const h = harness(2);
    for (const hash of ["a", "b", "c"]) h.db.set(hash, { key_id: hash.charCodeAt(0), revoked: false });
    const a = await h.lookup("a");
    assert.ok(Object.isFrozen(a));
    await h.lookup("b");
    await h.lookup("c");
    assert.equal(h.cache.size, 2);
    const before = h.reads();
    await h.lookup("c");
    await h.lookup("b");
    assert.equal(h.reads(), before, "b and c kept");
    await h.lookup("a");
    assert.equal(h.reads(), before + 1, "a was the one that went");
  });

  test("with a bound, a kept row answers until that long after its read began, then is read again", async () => {
    const h = harness(undefined, 1_000);
    h.db.set("a", { key_id: 1, revoked: false });
    await h.lookup("a");
    // Another process revokes the key: nothing this process counts moves.
    h.db.set("a", { key_id: 1, revoked: true });
    h.advance(499);
    assert.deepEqual(await h.lookup("a"), { key_id: 1, revoked: false });
    assert.equal(h.reads(), 1);
    // No request while the row was half the bound to the bound old: the first after reads it.
    h.advance(501);
    assert.deepEqual(await h.lookup("a"), { key_id: 1, revoked: true });
    assert.equal(h.reads(), 2);
    assert.equal(h.cache.size, 1, "the fresh row replaced the old one");
  });

  test("with a bound, a key in use is read again in the background from half the bound on, never in a request", async () => {
    const h = harness(undefined, 1_000);
    h.db.set("a", { key_id: 1, revoked: false });
    await h.lookup("a");
    h.db.set("a", { key_id: 1, revoked: true });
    h.advance(500);
    // Answered from the kept row (within the bound); one read starts, however many ask meanwhile.
    const answers = await Promise.all([h.lookup("a"), h.lookup("a"), h.lookup("a")]);
    assert.deepEqual(answers, Array(3).fill({ key_id: 1, revoked: false }));
    assert.equal(h.reads(), 2);
    await settled();
    // The fresh row, read from 500 ms on, answers to 1,500 ms without a read in a request.
    h.advance(499);
    assert.deepEqual(await h.lookup("a"), { key_id: 1, revoked: true });
    assert.equal(h.reads(), 2);
    // At half the fresh row's bound, the next background read; the request is answered from the row.
    h.advance(1);
    assert.deepEqual(await h.lookup("a"), { key_id: 1, revoked: true });
    assert.equal(h.reads(), 3);
  });

  test("a background read across a write is not kept, nor is a key deleted meanwhile; a failed one changes nothing", async () => {
    const h = harness(undefined, 1_000);
    h.db.set("a", { key_id: 1, revoked: false });
    await h.lookup("a");
    h.advance(600);
    let finish!: () => void;
    let reads = 0;
    const slow = () => {
      reads++;
      return new Promise<Row | undefined>((resolve) => {
        finish = () => resolve({ key_id: 1, revoked: false });
      });
    };
    await h.cache.lookup("a", slow);
    h.write();
    finish();
    await settled();
    // The write emptied what was kept; the background row, read across it, was not kept either.
    await h.lookup("a");
    assert.equal(h.reads(), 2, "read in the request after the write");
    assert.equal(reads, 1);

    h.db.delete("a");
    h.advance(600);
    assert.deepEqual(await h.lookup("a"), { key_id: 1, revoked: false }, "still within the bound");
    await settled();
    assert.equal(h.cache.size, 0, "deleted: not kept");
    assert.equal(await h.lookup("a"), undefined);

    h.db.set("b", { key_id: 2, revoked: false });
    await h.lookup("b");
    h.advance(600);
    await h.cache.lookup("b", async () => {
      throw new Error("connection lost");
    });
    await settled();
    const before = h.reads();
    h.advance(399);
    assert.deepEqual(await h.lookup("b"), { key_id: 2, revoked: false }, "the kept row answers to its bound");
    assert.equal(
      h.reads(),
      before + 1,
      "and the next request past half the bound tries again in the background",
    );
  });

  test("with a bound, a clock set back makes a kept row too old", async () => {
    const h = harness(undefined, 1_000);
    h.db.set("a", { key_id: 1, revoked: false });
    await h.lookup("a");
    h.advance(-1);
    await h.lookup("a");
    assert.equal(h.reads(), 2);
  });

  test("without a bound (the embedded database), time alone never drops a kept row", async () => {
    const h = harness();
    h.db.set("a", { key_id: 1, revoked: false });
    await h.lookup("a");
    h.advance(86_400_000);
    await h.lookup("a");
    h.advance(-86_400_000 * 2);
    await h.lookup("a");
    assert.equal(h.reads(), 1);
  });
});

/** Lets background reads settle (their promises resolve in later turns). */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));
