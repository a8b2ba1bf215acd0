import type { FastifyReply } from "fastify";
import { type TextOrBytes, textOf, utf8Length } from "../db/text-bytes.ts";
import { streamOfPieces } from "./piece-stream.ts";

/**
 * Sends a body the database wrote as JSON text (src/db/json-text.ts) as it is: Fastify passes a string
 * (or bytes) with a JSON content type through without running the route's serializer. The route keeps
 * its response schema for the OpenAPI document; test/http/json-from-database.test.ts holds the text to it.
 */
export function sendJsonText(
  // biome-ignore lint/suspicious/noExplicitAny: any route's reply, whatever its typed schema
  reply: FastifyReply<any, any, any, any, any, any, any, any>,
  text: string | Buffer,
) {
  return (reply as FastifyReply).type("application/json; charset=utf-8").send(text);
}

/**
 * Sends JSON text given in pieces as they are, with its length, framed as an answer of bytes would
 * be: a big order's ~280 KB of lines go to the socket as the database handed them over, where joining
 * the pieces into one buffer first (jsonBytes) copied them once more outside the heap, memory whose
 * growth brings V8's collections too (issue 18 item 2; docs/reliability.md 5b).
 */
export function sendJsonPieces(
  // biome-ignore lint/suspicious/noExplicitAny: any route's reply, whatever its typed schema
  reply: FastifyReply<any, any, any, any, any, any, any, any>,
  pieces: readonly TextOrBytes[],
) {
  let length = 0;
  for (const piece of pieces) length += utf8Length(piece);
  return (reply as FastifyReply)
    .type("application/json; charset=utf-8")
    .header("content-length", String(length))
    .send(streamOfPieces(pieces));
}

/**
 * The UTF-8 bytes of JSON text given in pieces, in one buffer outside the JavaScript heap. A big
 * order's answer is its header's text with the ~280 KB of its lines' text (as the database wrote it)
 * in the middle: joined as a string it was copied into a new string on the event loop, and Node's
 * HTTP layer copied it once more to put the headers before it, two copies a request in the loop's
 * young generation, whose collections every other store's requests wait behind (issue 18 item 2).
 * Written into a buffer, each piece is encoded once, off the heap, and the buffer is sent as it is; a
 * piece the embedded database handed over as bytes (db/text-bytes.ts) is copied as it is.
 */
export function jsonBytes(pieces: readonly TextOrBytes[]): Buffer {
  let length = 0;
  for (const piece of pieces) length += utf8Length(piece);
  const bytes = Buffer.allocUnsafe(length);
  let at = 0;
  for (const piece of pieces) {
    if (typeof piece === "string") at += bytes.write(piece, at);
    else {
      bytes.set(piece, at);
      at += piece.byteLength;
    }
  }
  return bytes;
}

/**
 * An answer's body already serialized, in pieces whose concatenation is its JSON text, sent and
 * stored (idempotent replays) as it is: a 500-line order's JSON whose lines the database wrote
 * (domain/purchase-orders/line-text.ts), which stringifying again would cost the event loop what
 * writing it in the database saved (issue 18 item 2). Write routes return it from their
 * transaction (write.ts).
 */
export class JsonText {
  private encoded: Buffer | null = null;

  constructor(readonly pieces: readonly TextOrBytes[]) {}

  /** The whole text. */
  get text(): string {
    return this.pieces.map(textOf).join("");
  }

  /**
   * The text's UTF-8 bytes, made once: a keyed write seals them as its stored answer (write.ts) and
   * then sends them, where joining the pieces into one string for the seal, encoding that for the
   * deflate and encoding the pieces again for the reply made three copies of a 60-90 KB answer.
   */
  bytes(): Buffer {
    this.encoded ??= jsonBytes(this.pieces);
    return this.encoded;
  }

  /** Sends the text: its bytes when a stored answer made them already, else its pieces as they are. */
  send(reply: FastifyReply) {
    return this.encoded ? sendJsonText(reply, this.encoded) : sendJsonPieces(reply, this.pieces);
  }
}
