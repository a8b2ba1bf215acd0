/**
 * randomBase62 (request, event and admin ids, API keys): the prefix, then exactly `length` characters
 * of the base62 alphabet, each equally likely, whatever the length (beyond its 256-byte scratch too).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { randomBase62 } from "../../src/domain/secrets.ts";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

test("the prefix, then `length` base62 characters", () => {
  fc.assert(
    fc.property(
      fc.string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz_"), maxLength: 12 }),
      fc.integer({ min: 0, max: 400 }),
      (prefix, length) => {
        const made = randomBase62(length, prefix);
        assert.equal(made.length, prefix.length + length);
        assert.equal(made.slice(0, prefix.length), prefix);
        assert.match(made.slice(prefix.length), /^[0-9A-Za-z]*$/);
      },
    ),
  );
});

test("every character equally likely: 62,000 drawn, each of the 62 seen 1,000 ± 200 times", () => {
  const counts = new Map<string, number>();
  for (let i = 0; i < 2_000; i++)
    for (const c of randomBase62(31, "req_").slice(4)) counts.set(c, (counts.get(c) ?? 0) + 1);
  assert.deepEqual([...counts.keys()].sort().join(""), [...ALPHABET].sort().join(""));
  // A standard deviation is ~31 here: 200 off is more than six of them.
  for (const [c, n] of counts) assert.ok(n > 800 && n < 1_200, `${c} drawn ${n} times`);
});

test("ids made one after another differ", () => {
  const ids = new Set(Array.from({ length: 10_000 }, () => randomBase62(20, "req_")));
  assert.equal(ids.size, 10_000);
});
