import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { canonicalJson } from "../../src/http/plugins/idempotency.ts";

/** The plain recursive definition the iterative one must match. */
function reference(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(reference).join(",")}]`;
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${reference(record[k])}`)
    .join(",")}}`;
}

describe("canonicalJson", () => {
  test("matches the recursive definition and ignores key order", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const canonical = canonicalJson(value);
        assert.equal(canonical, reference(value));
        assert.deepEqual(JSON.parse(canonical), JSON.parse(JSON.stringify(value)));
        const reordered = JSON.parse(JSON.stringify(value), (_k, v) =>
          v !== null && typeof v === "object" && !Array.isArray(v)
            ? Object.fromEntries(Object.entries(v).reverse())
            : v,
        );
        assert.equal(canonicalJson(reordered), canonical);
      }),
      { seed: 11, numRuns: 2000 },
    );
  });

  test("100,000 levels deep, as objects or arrays, without overflowing the stack", () => {
    const depth = 100_000;
    const objects = JSON.parse(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`);
    assert.equal(canonicalJson(objects), `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`);
    const arrays = JSON.parse(`${"[".repeat(depth)}${"]".repeat(depth)}`);
    assert.equal(canonicalJson(arrays), `${"[".repeat(depth)}${"]".repeat(depth)}`);
  });
});
