/** One request's line in the request log. */
export interface LogRow {
  store_id: number;
  key_id: number | null;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  idempotency_key: string | null;
  request_id: string;
  created_at: Date;
}

/** Buffered rows as the insert sends them: one array per column, the time in milliseconds since 1970. */
export interface LogColumns {
  store_id: number[];
  key_id: Array<number | null>;
  method: string[];
  path: string[];
  status: number[];
  duration_ms: number[];
  idempotency_key: Array<string | null>;
  request_id: string[];
  created_at_ms: number[];
}

/** A key id no key has (ids start at 1): the row of a request without one. */
const NO_KEY = 0;

/**
 * The rows waiting for the next flush, kept by column: the numbers in typed arrays (their bytes
 * outside V8's heap), the strings in arrays, the time as milliseconds; no object nor Date per row.
 * Rows wait up to 500 requests or 250 ms, long enough to live through young-generation collections,
 * and each collection copies what is alive then: with 32 PDFs in flight, row objects and their Dates
 * were a tenth of what a scavenge kept (docs/performance.md, "PDFs beside whoami"). The typed arrays
 * are kept from flush to flush; the string arrays start again empty.
 */
export class LogBuffer {
  private count = 0;
  private storeIds = new Int32Array(512);
  private keyIds = new Int32Array(512);
  private statuses = new Int32Array(512);
  private durations = new Int32Array(512);
  private createdAtMs = new Float64Array(512);
  private methods: string[] = [];
  private paths: string[] = [];
  private idempotencyKeys: Array<string | null> = [];
  private requestIds: string[] = [];

  get length(): number {
    return this.count;
  }

  push(row: LogRow): void {
    if (this.count === this.storeIds.length) this.grow();
    const i = this.count++;
    this.storeIds[i] = row.store_id;
    this.keyIds[i] = row.key_id ?? NO_KEY;
    this.statuses[i] = row.status;
    this.durations[i] = row.duration_ms;
    this.createdAtMs[i] = row.created_at.getTime();
    this.methods.push(row.method);
    this.paths.push(row.path);
    this.idempotencyKeys.push(row.idempotency_key);
    this.requestIds.push(row.request_id);
  }

  /** The rows so far as columns; the buffer is empty after. */
  take(): LogColumns {
    const n = this.count;
    const numbers = (a: Int32Array | Float64Array) => Array.from(a.subarray(0, n));
    const taken: LogColumns = {
      store_id: numbers(this.storeIds),
      key_id: Array.from(this.keyIds.subarray(0, n), (id) => (id === NO_KEY ? null : id)),
      method: this.methods,
      path: this.paths,
      status: numbers(this.statuses),
      duration_ms: numbers(this.durations),
      idempotency_key: this.idempotencyKeys,
      request_id: this.requestIds,
      created_at_ms: numbers(this.createdAtMs),
    };
    this.count = 0;
    this.methods = [];
    this.paths = [];
    this.idempotencyKeys = [];
    this.requestIds = [];
    return taken;
  }

  /** Rows taken earlier put back before the ones recorded since, the oldest dropped beyond `max`. */
  putBack(earlier: LogColumns, max: number): void {
    const since = this.take();
    let drop = Math.max(0, earlier.store_id.length + since.store_id.length - max);
    for (const rows of [earlier, since]) {
      const from = Math.min(drop, rows.store_id.length);
      drop -= from;
      for (let i = from; i < rows.store_id.length; i++)
        this.push({
          store_id: rows.store_id[i],
          key_id: rows.key_id[i],
          method: rows.method[i],
          path: rows.path[i],
          status: rows.status[i],
          duration_ms: rows.duration_ms[i],
          idempotency_key: rows.idempotency_key[i],
          request_id: rows.request_id[i],
          created_at: new Date(rows.created_at_ms[i]),
        });
    }
  }

  private grow(): void {
    const size = this.storeIds.length * 2;
    const wider = <T extends Int32Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(size);
      b.set(a);
      return b;
    };
    this.storeIds = wider(this.storeIds, (n) => new Int32Array(n));
    this.keyIds = wider(this.keyIds, (n) => new Int32Array(n));
    this.statuses = wider(this.statuses, (n) => new Int32Array(n));
    this.durations = wider(this.durations, (n) => new Int32Array(n));
    this.createdAtMs = wider(this.createdAtMs, (n) => new Float64Array(n));
  }
}
