import { createHmac } from "node:crypto";
import type { SelectQueryBuilder } from "kysely";
import type { Database } from "../db/schema.ts";
import { AppError } from "../domain/errors.ts";

/**
 * Lines one page of a list of documents with lines (orders, receipts, stock adjustments) carries at
 * most (ten orders at their cap, a few MB of JSON): the page ends before it, with `has_more`, whatever
 * `limit` asked for (which stays 1 to 250). docs/decisions.md.
 */
export const LINES_PER_PAGE = 5_000;

export interface PageRequest {
  limit?: number;
  cursor?: string;
  updated_at_min?: string;
  updated_at_max?: string;
  created_at_min?: string;
  created_at_max?: string;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

export interface KeysetSpec {
  /** Qualified column names, e.g. `po.updated_at` and `po.id`. */
  timeColumn: string;
  idColumn: string;
  direction: "asc" | "desc";
  /** Column names for the four date filters (default: `<alias>.updated_at` / `<alias>.created_at`). */
  updatedColumn?: string;
  createdColumn?: string;
  /** Filter values the cursor is bound to (everything in the query except limit and cursor), plus scope. */
  binding: Record<string, unknown>;
}

interface CursorPayload {
  t: string;
  i: number;
  f: string;
}

function filterFingerprint(binding: Record<string, unknown>): string {
  const keys = Object.keys(binding)
    .filter((k) => binding[k] !== undefined && k !== "cursor" && k !== "limit")
    .sort();
  const text = keys.map((k) => `${k}=${JSON.stringify(binding[k])}`).join("&");
  return createHmac("sha256", "filters").update(text).digest("base64url").slice(0, 16);
}

/** Opaque, signed cursor: the last row's sort key and a fingerprint of the filters it belongs to. */
export function encodeCursor(secret: string, payload: CursorPayload): string {
  const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
  const sig = createHmac("sha256", secret).update(body).digest("base64url").slice(0, 22);
  return `${body}.${sig}`;
}

export function decodeCursor(
  secret: string,
  cursor: string,
  binding: Record<string, unknown>,
): CursorPayload {
  const invalid = new AppError("invalid_cursor", "The cursor is not valid for this list and these filters.");
  const [body, sig, extra] = cursor.split(".");
  if (!body || !sig || extra !== undefined) throw invalid;
  const expected = createHmac("sha256", secret).update(body).digest("base64url").slice(0, 22);
  if (sig !== expected) throw invalid;
  let payload: CursorPayload;
  try {
    payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    throw invalid;
  }
  if (
    typeof payload?.t !== "string" ||
    !Number.isInteger(payload.i) ||
    payload.f !== filterFingerprint(binding)
  )
    throw invalid;
  if (Number.isNaN(Date.parse(payload.t))) throw invalid;
  return payload;
}

/**
 * The one keyset pager. Applies the date filters, the cursor position and `limit + 1`, then builds
 * `{data, next_cursor, has_more}`. `rowKey` reads the sort key back from a row. The binding must hold
 * the store id and the list's name, so a cursor is refused on another list or for another store.
 */
export async function keysetPage<DB extends Database, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  params: PageRequest,
  spec: KeysetSpec,
  secret: string,
  rowKey: (row: O) => { time: Date; id: number },
  /**
   * Bounds a page's size where rows carry parts of their own (an order's lines): the page ends early,
   * `has_more` true, before the rows' weights add up beyond `max` (it always holds one row).
   */
  budget?: { weight: (row: O) => number; max: number },
  /** Runs the page's finished query (json-text.ts names its statement); its `execute` by default. */
  // biome-ignore lint/suspicious/noExplicitAny: the query as built above
  execute: (query: SelectQueryBuilder<any, any, O>) => Promise<O[]> = (query) => query.execute(),
): Promise<Page<O>> {
  const limit = params.limit ?? 50;
  const binding = {
    ...spec.binding,
    updated_at_min: params.updated_at_min,
    updated_at_max: params.updated_at_max,
    created_at_min: params.created_at_min,
    created_at_max: params.created_at_max,
  };
  // biome-ignore lint/suspicious/noExplicitAny: column names are validated by the caller's spec
  let q = query as SelectQueryBuilder<any, any, O>;
  const updated = spec.updatedColumn ?? spec.timeColumn;
  const created = spec.createdColumn ?? spec.timeColumn.replace(/updated_at$/, "created_at");
  if (params.updated_at_min) q = q.where(updated, ">=", new Date(params.updated_at_min));
  if (params.updated_at_max) q = q.where(updated, "<=", new Date(params.updated_at_max));
  if (params.created_at_min) q = q.where(created, ">=", new Date(params.created_at_min));
  if (params.created_at_max) q = q.where(created, "<=", new Date(params.created_at_max));
  if (params.cursor) {
    const c = decodeCursor(secret, params.cursor, binding);
    const op = spec.direction === "asc" ? ">" : "<";
    q = q.where((eb) => eb(eb.refTuple(spec.timeColumn, spec.idColumn), op, eb.tuple(new Date(c.t), c.i)));
  }
  q = q
    .orderBy(spec.timeColumn, spec.direction)
    .orderBy(spec.idColumn, spec.direction)
    .limit(limit + 1);
  const rows = await execute(q);
  let keep = Math.min(rows.length, limit);
  if (budget) {
    let total = 0;
    for (let i = 0; i < keep; i++) {
      total += budget.weight(rows[i]);
      if (total > budget.max && i > 0) keep = i;
    }
  }
  const hasMore = rows.length > keep;
  const data = rows.slice(0, keep);
  let next: string | null = null;
  if (hasMore) {
    const last = rowKey(data[data.length - 1]);
    next = encodeCursor(secret, { t: last.time.toISOString(), i: last.id, f: filterFingerprint(binding) });
  }
  return { data, next_cursor: next, has_more: hasMore };
}
