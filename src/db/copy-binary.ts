/**
 * A statement's rows as PostgreSQL's binary COPY writes them: each value its bytes, never a string
 * on the event loop. The driver decodes every value of an ordinary result into a string (its
 * protocol parser does, whatever the result format), so a page's lines' JSON text (up to 850 KB,
 * domain/purchase-orders/text-read.ts) was built as strings in the loop's young generation and then
 * encoded again into bytes: most of what a page allocated on the loop, whose collections every other
 * store's requests wait behind (issue 18 item 2; docs/reliability.md 5b). COPY's data messages come
 * from the driver as bytes; a text value in COPY's binary format is its UTF-8 bytes as they are.
 *
 * COPY takes no bound parameters: the statement's values are written into its text, and callers
 * give only integers (`sqlInts`), never text. The server parses and plans such a statement on every
 * run, as it does any unnamed statement.
 */
import type pg from "pg";
import type { Db } from "./database.ts";
import { isServerError } from "./pg-driver.ts";
import { poolOf } from "./prepared.ts";

/** `PGCOPY\n\377\r\n\0`: the binary COPY format's signature. */
const SIGNATURE = Buffer.from([0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00]);

/** A row's values as bytes (views into the COPY's output), null for SQL null. */
export type BinaryRow = Array<Buffer | null>;

/** Integers for a statement's text; anything else is refused (COPY cannot bind parameters). */
export function sqlInts(values: readonly number[]): string {
  for (const value of values)
    if (!Number.isSafeInteger(value)) throw new Error(`not an integer for a COPY statement: ${value}`);
  return values.join(",");
}

/**
 * The driver's handle on a query it runs (a "submittable"): sends `copy (select) to stdout` and
 * collects the data messages' bytes. The driver hands each message as a view into its read buffer,
 * which it reuses, so every one is copied at once (outside the heap); the rows are read from those
 * copies as they are, not joined into one buffer first. The server sends a row per message: callers
 * keep rows small (a big text as several rows, text-read.ts), as the driver's parser doubles its
 * buffer while a message bigger than a socket read arrives (a 280 KB row: 128, 256 and 512 KB
 * allocated and filled, fresh pages the kernel zeroes and Buffers whose allocation starts scavenges
 * on the event loop; docs/reliability.md 5b).
 */
class CopyOut {
  private readonly chunks: Buffer[] = [];
  private failure: Error | null = null;

  /**
   * `callback` is given here, never assigned to the object afterwards: V8 allocates a function
   * literal assigned to a property (`copy.callback = () => …`) in the old generation, its parser's
   * guess that such a function is a long-lived method. There the closure outlives its statement, and
   * the young generation's collections take it for a root: everything it reaches (the promise it
   * resolves, the COPY's pieces, ~280 KB of Buffers for a 500-line order) lived through the
   * scavenges until a full collection, and its Buffers' bytes, V8's external memory, started one
   * (issue 18 item 2; docs/reliability.md 5b, "The closures V8 put in the old generation").
   */
  constructor(
    private readonly text: string,
    readonly callback: (error: Error | null, chunks?: Buffer[]) => void,
  ) {}

  submit(connection: { query(text: string): void }): void {
    connection.query(this.text);
  }

  /** Copied to a buffer of its size (a small one a slice of Node's pool, as `Buffer.from` would). */
  handleCopyData(message: { chunk: Buffer }): void {
    const copy = Buffer.allocUnsafe(message.chunk.byteLength);
    message.chunk.copy(copy);
    this.chunks.push(copy);
  }

  handleError(error: Error): void {
    this.failure ??= error;
  }

  /** The statement ends here, failed or not: the connection is ready for the next. */
  handleReadyForQuery(): void {
    if (this.failure) this.callback(this.failure);
    else this.callback(null, this.chunks);
  }

  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(connection: { sendCopyFail(message: string): void }): void {
    connection.sendCopyFail("not a COPY FROM");
  }
}

/**
 * Runs `copy (<select>) to stdout (format binary)` on a client of `db`'s PostgreSQL pool; its rows as
 * bytes. Only for a handle on a pool (prepared.ts, `onPool`).
 */
export async function copyRowsBinary(db: Db, select: string): Promise<BinaryRow[]> {
  const pool = poolOf(db);
  if (!pool) throw new Error("COPY needs a PostgreSQL pool");
  const client = await pool.connect();
  let chunks: Buffer[];
  try {
    chunks = await new Promise<Buffer[]>((resolve, reject) => {
      const copy = new CopyOut(`copy (${select}) to stdout (format binary)`, (error, data) =>
        error ? reject(error) : resolve(data as Buffer[]),
      );
      client.query(copy as unknown as pg.QueryConfig);
    });
  } catch (error) {
    // The statement's own error leaves the connection usable; anything else (a lost server) drops it.
    client.release(isServerError(error) ? undefined : (error as Error));
    throw error;
  }
  client.release();
  return binaryRows(chunks);
}

/**
 * Reads bytes in order across the chunks of a COPY's output. The server sends a row per message, so
 * a value lies within one chunk and is given as a view into it; one that spans chunks (the protocol
 * allows any split) is joined.
 */
class ChunkReader {
  private chunk = 0;
  private at = 0;

  constructor(private readonly chunks: readonly Buffer[]) {}

  /** The next `length` bytes. */
  take(length: number): Buffer {
    while (this.chunk < this.chunks.length && this.at === this.chunks[this.chunk].byteLength) {
      this.chunk++;
      this.at = 0;
    }
    const current = this.chunks[this.chunk];
    if (current && this.at + length <= current.byteLength) {
      this.at += length;
      return current.subarray(this.at - length, this.at);
    }
    const pieces: Buffer[] = [];
    let left = length;
    while (left > 0) {
      const from = this.chunks[this.chunk];
      if (!from) throw new Error("a binary COPY output cut short");
      const piece = from.subarray(this.at, this.at + left);
      pieces.push(piece);
      left -= piece.byteLength;
      this.at += piece.byteLength;
      if (this.at === from.byteLength) {
        this.chunk++;
        this.at = 0;
      }
    }
    return Buffer.concat(pieces, length);
  }
}

/** The rows of a binary COPY's output (header, tuples, trailer), values as views into its chunks. */
export function binaryRows(chunks: readonly Buffer[]): BinaryRow[] {
  const reader = new ChunkReader(chunks);
  if (!reader.take(SIGNATURE.byteLength).equals(SIGNATURE)) throw new Error("not a binary COPY output");
  reader.take(4); // the flags field
  reader.take(reader.take(4).readInt32BE(0)); // the header extension
  const rows: BinaryRow[] = [];
  for (;;) {
    const count = reader.take(2).readInt16BE(0);
    if (count === -1) return rows;
    const row: BinaryRow = [];
    for (let i = 0; i < count; i++) {
      const length = reader.take(4).readInt32BE(0);
      row.push(length === -1 ? null : reader.take(length));
    }
    rows.push(row);
  }
}
