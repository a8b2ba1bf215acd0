// Cursor pagination and `query: "updated_at:>…"` search the way the Admin API answers them: `first` is
// required and at most 250 (a bulk operation reads everything), cursors are opaque, paging stops at
// 25,000 objects (a shop's `pagingLimit`, smaller in tests: the page that reaches it is the last, with
// hasNextPage false, though more rows match), and search terms the stand-in does not know are ignored (Shopify ignores them too).
// `sortKey` ID, UPDATED_AT, TITLE, NAME and SKU order the rows (ties by id); other keys order by id.
// Times are searched and sorted at the whole second, as Shopify keeps them (time.ts).
import { GraphQLError } from "graphql";
import { wholeSecond } from "./time.ts";

export interface ConnectionArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  query?: string | null;
  reverse?: boolean | null;
  sortKey?: string | null;
}

type Row = { id: number; updatedAt: Date };
type Position = { id: number; value: number | string };

function sortValue(row: Row, key: string): number | string {
  if (key === "UPDATED_AT") return wholeSecond(row.updatedAt);
  const field = { TITLE: "title", NAME: "name", SKU: "sku" }[key];
  return field ? String((row as Record<string, unknown>)[field] ?? "") : row.id;
}

const compare = (a: Position, b: Position) => (a.value < b.value ? -1 : a.value > b.value ? 1 : a.id - b.id);

const PAGE_MAX = 250;
const INPUT_ARRAY_MAX = 250;

/** Shopify's API limits: an input array holds at most 250 items, or the request is an error. */
export function checkInputArray(size: number, path: string[]): void {
  if (size > INPUT_ARRAY_MAX) {
    throw new GraphQLError(
      `The input array size of ${size} is greater than the maximum allowed of ${INPUT_ARRAY_MAX}.`,
      {
        path,
        extensions: { code: "MAX_INPUT_SIZE_EXCEEDED" },
      },
    );
  }
}
/** Shopify's limit on how deep a paginated read goes (shopify.dev "API limits"). */
export const PAGING_LIMIT = 25_000;

/** How a connection pages: everything (inside a bulk operation), or by `first` up to `limit` objects. */
export type Paging = "bulk" | { limit: number };

const encode = (p: Position) =>
  Buffer.from(JSON.stringify({ last_id: p.id, last_value: p.value })).toString("base64url");

function decode(cursor: string): Position {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Number.isSafeInteger(parsed.last_id)) return { id: parsed.last_id, value: parsed.last_value };
  } catch {}
  throw new GraphQLError("Invalid cursor for current pagination.", { extensions: { code: "BAD_REQUEST" } });
}

const TERM = /^updated_at:(>=|<=|>|<)?['"]?([^'"]+)['"]?$/;

/** The rows an `updated_at` search keeps; any other term is ignored. */
export function searchUpdatedAt<T extends { updatedAt: Date }>(
  rows: T[],
  query: string | null | undefined,
): T[] {
  if (!query) return rows;
  const tests = (query.match(/\S+:(?:>=|<=|>|<)?(?:'[^']*'|"[^"]*"|\S+)/g) ?? []).flatMap((term) => {
    const match = TERM.exec(term);
    if (!match) return [];
    const at = new Date(match[2]).getTime();
    if (Number.isNaN(at)) return [];
    const op = match[1] ?? "=";
    return [
      (t: number) =>
        op === ">" ? t > at : op === ">=" ? t >= at : op === "<" ? t < at : op === "<=" ? t <= at : t === at,
    ];
  });
  return rows.filter((row) => tests.every((test) => test(wholeSecond(row.updatedAt))));
}

export function connection<T extends Row>(
  all: Iterable<T>,
  args: ConnectionArgs,
  view: (row: T) => unknown,
  paging: Paging,
  defaultSortKey = "ID",
) {
  if (args.last != null) {
    throw new GraphQLError("The stand-in pages forward only: use first and after.");
  }
  const key = args.sortKey ?? defaultSortKey;
  const direction = args.reverse ? -1 : 1;
  const rows = searchUpdatedAt([...all], args.query)
    .map((row) => ({ row, at: { id: row.id, value: sortValue(row, key) } }))
    .sort((a, b) => direction * compare(a.at, b.at));
  let start = 0;
  if (args.after) {
    const after = decode(args.after);
    start = rows.findIndex((r) => direction * compare(r.at, after) > 0);
    if (start < 0) start = rows.length;
  }
  let end = rows.length;
  let limit = Number.POSITIVE_INFINITY;
  if (paging !== "bulk") {
    limit = paging.limit;
    if (args.first == null) throw new GraphQLError("you must provide one of first or last");
    if (args.first > PAGE_MAX || args.first < 0) {
      throw new GraphQLError(`The first argument must be between 0 and ${PAGE_MAX}.`);
    }
    end = Math.min(start + args.first, rows.length, limit);
  }
  const page = rows.slice(start, Math.max(start, end));
  const nodes = page.map((r) => view(r.row));
  return {
    edges: page.map((r, i) => ({ cursor: encode(r.at), node: nodes[i] })),
    nodes,
    pageInfo: {
      hasNextPage: end < limit && end < rows.length,
      hasPreviousPage: start > 0,
      startCursor: page.length ? encode(page[0].at) : null,
      endCursor: page.length ? encode(page[page.length - 1].at) : null,
    },
  };
}
