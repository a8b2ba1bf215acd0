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

/** The buffered rows as the insert sends them: one array per column, `created_at` as ISO text. */
export interface LogColumns {
  store_id: number[];
  key_id: Array<number | null>;
  method: string[];
  path: string[];
  status: number[];
  duration_ms: number[];
  idempotency_key: Array<string | null>;
  request_id: string[];
  created_at: string[];
}

/**
 * The rows waiting for the next flush, kept by column: numbers in arrays of numbers, the time as
 * milliseconds, so a buffered row is a few array slots rather than an object and a Date. They wait up
 * to 500 requests or 250 ms, long enough to live through a young-generation collection, and every
 * collection then copies whatever waits: with 32 PDFs in flight, row objects and their Dates were a
 * tenth of what each scavenge copied (docs/performance.md, "PDFs beside whoami"). The columns are what
 * the insert's parameters are made of anyway.
 */
export class LogBuffer {
  private storeIds: number[] = [];
  private keyIds: Array<number | null> = [];
  private methods: string[] = [];
  private paths: string[] = [];
  private statuses: number[] = [];
  private durations: number[] = [];
  private idempotencyKeys: Array<string | null> = [];
  private requestIds: string[] = [];
  private createdAtMs: number[] = [];

  get length(): number {
    return this.storeIds.length;
  }

  push(row: LogRow): void {
    this.storeIds.push(row.store_id);
    this.keyIds.push(row.key_id);
    this.methods.push(row.method);
    this.paths.push(row.path);
    this.statuses.push(row.status);
    this.durations.push(row.duration_ms);
    this.idempotencyKeys.push(row.idempotency_key);
    this.requestIds.push(row.request_id);
    this.createdAtMs.push(row.created_at.getTime());
  }

  /** The rows of `earlier` put before these, the oldest dropped beyond `max` (a flush that failed). */
  prepend(earlier: LogBuffer, max: number): void {
    const join = <T>(a: T[], b: T[]) => a.concat(b).slice(-max);
    this.storeIds = join(earlier.storeIds, this.storeIds);
    this.keyIds = join(earlier.keyIds, this.keyIds);
    this.methods = join(earlier.methods, this.methods);
    this.paths = join(earlier.paths, this.paths);
    this.statuses = join(earlier.statuses, this.statuses);
    this.durations = join(earlier.durations, this.durations);
    this.idempotencyKeys = join(earlier.idempotencyKeys, this.idempotencyKeys);
    this.requestIds = join(earlier.requestIds, this.requestIds);
    this.createdAtMs = join(earlier.createdAtMs, this.createdAtMs);
  }

  columns(): LogColumns {
    return {
      store_id: this.storeIds,
      key_id: this.keyIds,
      method: this.methods,
      path: this.paths,
      status: this.statuses,
      duration_ms: this.durations,
      idempotency_key: this.idempotencyKeys,
      request_id: this.requestIds,
      created_at: this.createdAtMs.map((ms) => new Date(ms).toISOString()),
    };
  }
}
