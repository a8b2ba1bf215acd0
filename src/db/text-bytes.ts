/**
 * Big JSON text the embedded database's thread hands over as UTF-8 bytes, not as a string (issue 18
 * item 2). A 500-line order's lines are ~280 KB of JSON text (purchase-orders/line-text.ts), a page's
 * up to 850 KB: as a string, a structured copy of them was rebuilt on the event loop, in its young
 * generation, for every big order's read, and the loop's collections are what another store's
 * requests then wait behind. As bytes, the thread gives the buffer away (transferred, not copied) and
 * the loop writes it into the answer as it is. A column whose name ends in BYTES_COLUMN_SUFFIX comes
 * this way from the embedded database (pglite-worker.ts); from PostgreSQL, whose driver gives every
 * value of a result as a string, such text is read through a binary COPY (copy-binary.ts).
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
