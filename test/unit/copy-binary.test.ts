/**
 * A binary COPY's output read from the chunks the driver handed over (src/db/copy-binary.ts): the
 * server sends a row per message, but the protocol allows any split, so the same rows must come out
 * whatever the chunks' boundaries, a value cut in two included.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { binaryRows } from "../../src/db/copy-binary.ts";

const SIGNATURE = Buffer.from([0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00]);

const int16 = (n: number) => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};

/** A binary COPY's output: header (with a 3-byte extension), rows of text or null, trailer. */
function copyOutput(rows: Array<Array<string | null>>): Buffer {
  const parts = [SIGNATURE, int32(0), int32(3), Buffer.from("ext")];
  for (const row of rows) {
    parts.push(int16(row.length));
    for (const value of row)
      if (value === null) parts.push(int32(-1));
      else parts.push(int32(Buffer.byteLength(value)), Buffer.from(value));
  }
  parts.push(int16(-1));
  return Buffer.concat(parts);
}

const ROWS = [
  ["1", '[{"a":"é 漢字"}]', ""],
  [null, "x".repeat(300), "two"],
];

const asText = (rows: ReturnType<typeof binaryRows>) =>
  rows.map((row) => row.map((v) => v?.toString("utf8") ?? null));

test("the rows of one chunk", () => {
  assert.deepEqual(asText(binaryRows([copyOutput(ROWS)])), ROWS);
});

test("the same rows whatever the chunks' boundaries, values cut in two included", () => {
  const whole = copyOutput(ROWS);
  for (let cut = 1; cut < whole.byteLength; cut++)
    for (const size of [1, 7]) {
      const chunks = [whole.subarray(0, cut)];
      for (let at = cut; at < whole.byteLength; at += size) chunks.push(whole.subarray(at, at + size));
      assert.deepEqual(asText(binaryRows(chunks)), ROWS, `cut at ${cut}, then pieces of ${size}`);
    }
});

test("an output cut short or not a COPY's is refused", () => {
  const whole = copyOutput(ROWS);
  assert.throws(() => binaryRows([whole.subarray(0, whole.byteLength - 1)]), /cut short/);
  assert.throws(() => binaryRows([Buffer.from("not a copy output at all")]), /not a binary COPY output/);
});
