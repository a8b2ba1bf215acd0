/**
 * The small orders' answers this process wrote last (one-statement-read.ts), each as the bytes of
 * GET's whole body with the version of the rows it shows. A read of a kept order asks the database for that version only, and answers
 * the kept text when it has not moved; writing the answer's JSON was most of the read's cost.
 *
 * A version is not a cache rule to keep in step with the writers: it is every row the answer shows,
 * by its `xmin` (the transaction that wrote the row's visible version; any update, by any process,
 * writes a new one), and the lines and other parts by id, so an insert or delete shows too. Nothing here is ever
 * trusted without the database's say.
 */

interface Kept {
  storeId: number;
  version: string;
  answer: Buffer;
}

/** Bytes kept at most: the answers' and their versions' (two a character, as V8 may keep them). */
const KEPT_BYTES_AT_MOST = 8 * 1024 * 1024;

export class OrderAnswers {
  private readonly kept = new Map<number, Kept>();
  private bytes = 0;

  constructor(private readonly bytesAtMost = KEPT_BYTES_AT_MOST) {}

  has(orderId: number): boolean {
    return this.kept.has(orderId);
  }

  /** The kept answer when it was written at `version`, for `storeId`'s order; else undefined. */
  at(orderId: number, storeId: number, version: string): Buffer | undefined {
    const kept = this.kept.get(orderId);
    if (!kept || kept.storeId !== storeId || kept.version !== version) return undefined;
    // Most recently used last: the first in the map is the first to go.
    this.kept.delete(orderId);
    this.kept.set(orderId, kept);
    return kept.answer;
  }

  keep(orderId: number, storeId: number, version: string, answer: Buffer): void {
    this.forget(orderId);
    const size = sizeOf(answer, version);
    if (size > this.bytesAtMost) return;
    this.kept.set(orderId, { storeId, version, answer });
    this.bytes += size;
    for (const [id, oldest] of this.kept) {
      if (this.bytes <= this.bytesAtMost) break;
      this.kept.delete(id);
      this.bytes -= sizeOf(oldest.answer, oldest.version);
    }
  }

  forget(orderId: number): void {
    const kept = this.kept.get(orderId);
    if (!kept) return;
    this.kept.delete(orderId);
    this.bytes -= sizeOf(kept.answer, kept.version);
  }
}

const sizeOf = (answer: Buffer, version: string) => answer.byteLength + 2 * version.length;
