// Cursor pagination and `query: "updated_at:>…"` search the way the Admin API answers them: `first` is
// required and at most 250 (a bulk operation reads everything), cursors are opaque, paging stops at
// 25,000 objects, and search terms the stand-in does not know are ignored (Shopify ignores them too).
import { GraphQLError } from "graphql";

export interface ConnectionArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  query?: string | null;
  reverse?: boolean | null;
}

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
const PAGING_LIMIT = 25_000;

const encode = (id: number) => Buffer.from(JSON.stringify({ last_id: id })).toString("base64url");

function decode(cursor: string): number {
  try {
    const id = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")).last_id;
    if (Number.isSafeInteger(id)) return id;
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
  return rows.filter((row) => tests.every((test) => test(row.updatedAt.getTime())));
}

export function connection<T extends { id: number; updatedAt: Date }>(
  all: Iterable<T>,
  args: ConnectionArgs,
  view: (row: T) => unknown,
  bulk: boolean,
) {
  if (args.last != null) {
    throw new GraphQLError("The stand-in pages forward only: use first and after.");
  }
  const rows = searchUpdatedAt([...all], args.query).sort((a, b) => a.id - b.id);
  if (args.reverse) rows.reverse();
  let start = 0;
  if (args.after) {
    const after = decode(args.after);
    start = rows.findIndex((row) => (args.reverse ? row.id < after : row.id > after));
    if (start < 0) start = rows.length;
  }
  let end = rows.length;
  if (!bulk) {
    if (args.first == null) throw new GraphQLError("you must provide one of first or last");
    if (args.first > PAGE_MAX || args.first < 0) {
      throw new GraphQLError(`The first argument must be between 0 and ${PAGE_MAX}.`);
    }
    end = Math.min(start + args.first, rows.length, PAGING_LIMIT);
  }
  const page = rows.slice(start, Math.max(start, end));
  const nodes = page.map(view);
  return {
    edges: page.map((row, i) => ({ cursor: encode(row.id), node: nodes[i] })),
    nodes,
    pageInfo: {
      hasNextPage: end < PAGING_LIMIT && end < rows.length,
      hasPreviousPage: start > 0,
      startCursor: page.length ? encode(page[0].id) : null,
      endCursor: page.length ? encode(page[page.length - 1].id) : null,
    },
  };
}
