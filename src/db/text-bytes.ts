/**
 * Big JSON text the embedded database's thread hands over as UTF-8 bytes, not as a string (issue 18
 * item 2). A 500-line order's lines are ~280 KB of JSON text (purchase-orders/line-text.ts), a page's
 * up to 850 KB: as a string, a structured copy of them was rebuilt on the event loop, in its young
 * generation, for every big order's read, and the loop's collections are what another store's
 * requests then wait behind. As bytes, the thread gives the buffer away (transferred, not copied) and
 * the loop writes it into the answer as it is. A column whose name ends in BYTES_COLUMN_SUFFIX comes
 * this way from the embedded database (pglite-worker.ts); PostgreSQL's driver gives it as a string.
 */
export type TextOrBytes = string | Uint8Array;

export const BYTES_COLUMN_SUFFIX = "_utf8";

/** The value as a string (decoded when it came as bytes). */
export function textOf(value: TextOrBytes): string {
  return typeof value === "string"
    ? value
    : Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("utf8");
}

/** The value's length in UTF-8 bytes. */
export function utf8Length(value: TextOrBytes): number {
  return typeof value === "string" ? Buffer.byteLength(value) : value.byteLength;
}

/**
 * The UTF-8 bytes of a JSON array whose elements' texts come in pieces, each some elements joined by
 * commas (`''` for none), in a buffer of its own outside the JavaScript heap. PostgreSQL's driver
 * decodes every value into a string: a 500-line order's ~280 KB of lines as one string went into V8's
 * large-object space, which is the old generation, and every big read on PostgreSQL grew it until a
 * full collection, which every other store's requests wait behind (issue 18 item 2). Pieces of some
 * 50 lines are ordinary young strings that die here at once; the bytes are what the embedded
 * database's thread hands over (above), and everything after takes them as such.
 */
export function jsonArrayBytes(pieces: readonly string[]): Uint8Array {
  const parts = pieces.filter((piece) => piece !== "");
  let length = 2 + Math.max(0, parts.length - 1);
  for (const part of parts) length += Buffer.byteLength(part);
  // Never from Node's shared pool: the bytes may be handed to another thread.
  const bytes = Buffer.allocUnsafeSlow(length);
  let at = bytes.write("[", 0);
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) at += bytes.write(",", at);
    at += bytes.write(parts[i], at);
  }
  bytes.write("]", at);
  return bytes;
}
