/**
 * The streams answers are sent from in pieces (src/http/piece-stream.ts), which replace
 * `Readable.from` (its streams left objects alive through the young generation's collections): the
 * pieces come out in order and as they are, one at a time as the reader asks, an async source's error
 * destroys the stream, and a stream destroyed first ends its source (a page stops reading rows for a
 * client gone).
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { test } from "node:test";
import { streamOfAsyncPieces, streamOfPieces } from "../../src/http/piece-stream.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

/** What a stream gives, each piece as it came. */
async function collect(stream: NodeJS.ReadableStream): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const piece of stream) out.push(piece);
  return out;
}

test("pieces in hand come out in order and as they are, strings and bytes alike", async () => {
  const pieces = ['{"a":', bytes("[1,2]"), "}"];
  const out = await collect(streamOfPieces(pieces));
  assert.deepEqual(out, pieces);
  assert.equal(out[1], pieces[1]); // the same bytes, not a copy
});

test("no pieces: an empty stream that ends", async () => {
  assert.deepEqual(await collect(streamOfPieces([])), []);
});

test("a slow reader takes the pieces one at a time: the stream holds at most one ahead", async () => {
  let asked = 0;
  async function* source() {
    for (let i = 0; i < 5; i++) {
      asked++;
      yield `p${i}`;
    }
  }
  const stream = streamOfAsyncPieces(source());
  const seen: Array<[string, number]> = [];
  await pipeline(
    stream,
    new Writable({
      objectMode: true,
      highWaterMark: 1,
      write(piece: string, _encoding, done) {
        seen.push([piece, asked]);
        setTimeout(done, 5);
      },
    }),
  );
  assert.deepEqual(
    seen.map(([piece]) => piece),
    ["p0", "p1", "p2", "p3", "p4"],
  );
  // When p0 was written the source had given at most three pieces (p0, one in the stream, one asked).
  for (const [piece, at] of seen)
    assert.ok(at <= Number(piece.slice(1)) + 3, `${piece} written after ${at} asked`);
});

test("an async source's error destroys the stream with it", async () => {
  async function* source() {
    yield "first";
    throw new Error("row failed");
  }
  await assert.rejects(collect(streamOfAsyncPieces(source())), /row failed/);
});

test("a stream destroyed before its end ends its source, which reads no further", async () => {
  let reached = 0;
  let finished = false;
  async function* source() {
    try {
      for (let i = 0; ; i++) {
        reached = i;
        yield `row ${i}`;
        await new Promise((r) => setImmediate(r));
      }
    } finally {
      finished = true;
    }
  }
  const stream = streamOfAsyncPieces(source());
  stream.once("data", () => stream.destroy());
  await once(stream, "close");
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(finished, true);
  assert.ok(reached < 3, `the source went on to row ${reached}`);
});
