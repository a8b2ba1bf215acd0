import type { TSchema } from "@sinclair/typebox";
import type { FastifyReply } from "fastify";
import type { Page } from "../db/keyset-paging.ts";
import type { TextOrBytes } from "../db/text-bytes.ts";
import { yieldToLoop } from "../domain/slices.ts";
import { streamOfAsyncPieces } from "./piece-stream.ts";

/**
 * Sends a page of documents with lines (up to LINES_PER_PAGE of them, a megabyte of JSON) as a stream,
 * one row at a time, the event loop let in between: serialized and written whole, such a page held
 * it for tens of milliseconds, and every other store's requests waited (issue 18 item 2). The bytes
 * are what the route's `Page(item)` response schema gives: each row goes through that item schema's
 * serializer, the envelope around them is written here. A row given in pieces (its text with a big
 * order's lines as the database wrote them) is written piece by piece, its lines' bytes as the
 * database handed them over: never joined into a new string on the loop, nor copied into a new
 * buffer (~280 KB a 500-line order, memory outside the heap whose growth brings collections too).
 */
export function sendPageInSlices<T>(
  reply: FastifyReply,
  page: Page<T>,
  item: TSchema,
  /**
   * A row's text from the item schema's serializer, when rows are not that schema's objects, in
   * pieces whose concatenation is the text.
   */
  rowText?: (serializeItem: (value: unknown) => string, row: T) => readonly TextOrBytes[],
): FastifyReply {
  const serializeItem = reply.compileSerializationSchema(item) as (value: unknown) => string;
  const serialize = rowText ? (row: T) => rowText(serializeItem, row) : (row: T) => [serializeItem(row)];
  return reply.type("application/json; charset=utf-8").send(streamOfAsyncPieces(pageText(page, serialize)));
}

/**
 * The page's text in pieces, a row at a time, the event loop let in between rows. At module level,
 * not declared inside sendPageInSlices: a generator function made anew for each page gives its
 * generator objects a map of their own, and V8 keeps maps in the old generation, where that map
 * outlived the answer and, through the function it names, kept the page (its ~850 KB of lines'
 * pieces, Buffers) alive through every young-generation collection until a full one: 830 KB a page
 * (issue 18 item 2; docs/reliability.md 5b, "The closures V8 put in the old generation").
 */
async function* pageText<T>(page: Page<T>, serialize: (row: T) => readonly TextOrBytes[]) {
  yield '{"data":[';
  for (let i = 0; i < page.data.length; i++) {
    if (i > 0) await yieldToLoop();
    let pieces = serialize(page.data[i]);
    // The comma between rows goes with the row's first piece: its head's text, a string.
    if (i > 0)
      pieces = typeof pieces[0] === "string" ? [`,${pieces[0]}`, ...pieces.slice(1)] : [",", ...pieces];
    for (const piece of pieces) yield piece;
  }
  yield `],"next_cursor":${JSON.stringify(page.next_cursor)},"has_more":${page.has_more}}`;
}
