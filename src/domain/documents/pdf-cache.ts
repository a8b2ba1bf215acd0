/**
 * Rendered PDFs kept for reuse, least recently used first out, bounded by their total size. The key
 * is the version of everything the document shows (pdf-version.ts), so an entry is never stale: an
 * order, store, supplier or location that changes makes a new key, and the old entry ages out.
 */
export class PdfCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    /** Bigger PDFs are not kept, so one of them cannot empty the cache of everyone else's. */
    private readonly maxEntryBytes = Math.floor(maxBytes / 4),
  ) {}

  get(key: string): Buffer | undefined {
    const pdf = this.entries.get(key);
    if (pdf) {
      this.entries.delete(key);
      this.entries.set(key, pdf);
    }
    return pdf;
  }

  set(key: string, pdf: Buffer): void {
    if (pdf.byteLength > this.maxEntryBytes || this.entries.has(key)) return;
    this.entries.set(key, pdf);
    this.bytes += pdf.byteLength;
    for (const [oldest, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= old.byteLength;
    }
  }

  get size(): number {
    return this.bytes;
  }
}
