import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { sql } from "kysely";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/database.ts";
import { recordKeysUsed } from "../../domain/stores/index.ts";
import { LogBuffer, type LogRow } from "./request-log-buffer.ts";

/**
 * Request log rows are buffered and written in one multi-row insert every few hundred milliseconds,
 * so logging never adds a database round trip to the request itself. The same flush stamps each
 * key's `last_used_at`. A crash loses at most the last flush interval of log rows, never data.
 */
export class RequestLogWriter {
  /** By column (request-log-buffer.ts): the rows outlive young-generation collections. */
  private readonly buffer = new LogBuffer();
  private lastUsed = new Map<number, Date>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly intervalMs = 250,
    private readonly maxBuffered = 500,
  ) {}

  /** Keeps the row's values (not the row, nor its Date) until the next flush. */
  record(row: LogRow): void {
    this.buffer.push(row);
    if (row.key_id !== null) this.lastUsed.set(row.key_id, row.created_at);
    if (this.buffer.length >= this.maxBuffered) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, this.intervalMs);
      this.timer.unref();
    }
  }

  /** Writes everything buffered so far; readers of the log call it first so they see their own requests. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeBuffered()).catch(() => {});
    return this.flushing;
  }

  private async writeBuffered(): Promise<void> {
    if (this.buffer.length === 0 && this.lastUsed.size === 0) return;
    const rows = this.buffer.take();
    const lastUsed = this.lastUsed;
    this.lastUsed = new Map();
    if (rows.store_id.length > 0)
      try {
        // Nine array parameters whatever the row count: cheap to build and to send at thousands a
        // second. The time goes as milliseconds (no text to make per row); their product with the
        // interval is exact (microseconds since 1970 are integers well within a double).
        await sql`insert into request_log
          (store_id, key_id, method, path, status, duration_ms, idempotency_key, request_id, created_at)
        select store_id, key_id, method, path, status, duration_ms, idempotency_key, request_id,
          timestamptz 'epoch' + created_ms * interval '1 millisecond'
        from unnest(${rows.store_id}::int[], ${rows.key_id}::int[], ${rows.method}::text[],
          ${rows.path}::text[], ${rows.status}::int[], ${rows.duration_ms}::int[],
          ${rows.idempotency_key}::text[], ${rows.request_id}::text[], ${rows.created_at_ms}::bigint[])
          as u(store_id, key_id, method, path, status, duration_ms, idempotency_key, request_id, created_ms)`.execute(
          this.db,
        );
      } catch {
        // The database is down: keep the rows for the next attempt, within a bound.
        this.buffer.putBack(rows, 10_000);
        this.keepLastUsed(lastUsed);
        return;
      }
    try {
      await recordKeysUsed(this.db, lastUsed);
    } catch {
      // The rows are written: only the keys' times wait for the next flush (the rows again would be
      // logged twice).
      this.keepLastUsed(lastUsed);
    }
  }

  /** Puts a failed flush's key times back, unless a later request of the key has replaced them. */
  private keepLastUsed(lastUsed: ReadonlyMap<number, Date>): void {
    for (const [keyId, at] of lastUsed) {
      const newer = this.lastUsed.get(keyId);
      if (!newer || newer < at) this.lastUsed.set(keyId, at);
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }

  now(): Date {
    return this.clock.now();
  }
}

export function registerRequestLog(app: FastifyInstance): void {
  app.addHook("onResponse", (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const principal = request.principal;
    // The request log is the integrators' (per API key); console calls have no key and stay out of it.
    if (!principal || principal.console) return done();
    const idem = request.headers["idempotency-key"];
    app.ctx.requestLog.record({
      store_id: principal.store.id,
      key_id: principal.key.id,
      method: request.method,
      path: request.url.length > 2000 ? request.url.slice(0, 2000) : request.url,
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime),
      idempotency_key: typeof idem === "string" ? idem.slice(0, 255) : null,
      request_id: String(request.id),
      created_at: app.ctx.clock.now(),
    });
    done();
  });
}
