import { type RawBuilder, type SelectQueryBuilder, sql } from "kysely";
import type { Db } from "./database.ts";
import { type KeysetSpec, keysetPage, type PageRequest } from "./keyset-paging.ts";
import { namePageStatement } from "./prepared.ts";
import type { Database } from "./schema.ts";

/**
 * List pages written as JSON by the database (issue 22 item 3). A page of 250 variants read as rows
 * cost the embedded database's JavaScript layer 25 parsed fields a row (timestamps made into Dates),
 * then a structured copy to the API's thread, then the presenter and the serializer on the event loop;
 * PostgreSQL's own JSON output does the same work in one pass in C. Each row comes back as one text
 * field holding its contract shape, and the page's body is those texts joined, parsed by nobody.
 */

/**
 * A timestamptz as the presenters write it (`Date#toISOString`: UTC, milliseconds, "Z"). `to_char`
 * truncates microseconds to milliseconds, as pg's and PGlite's parsing into a Date does.
 */
export function isoText(column: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** The columns a JSON page's query selects: the row's JSON text and its sort key. */
export interface JsonPageRow {
  row_json: string;
  page_time: Date;
  page_id: number;
}

/**
 * keysetPage's page (same filters, cursor, order and limit) as the response body's text:
 * `{"data":[…],"next_cursor":…,"has_more":…}`, in the Page schema's key order.
 */
export async function keysetJsonPage<DB extends Database, TB extends keyof DB>(
  db: Db,
  query: SelectQueryBuilder<DB, TB, JsonPageRow>,
  params: PageRequest,
  spec: KeysetSpec,
  secret: string,
): Promise<string> {
  const page = await keysetPage(
    query,
    params,
    spec,
    secret,
    (row) => ({ time: row.page_time, id: row.page_id }),
    undefined,
    async (finished) => {
      // A named statement on PostgreSQL: the JSON's expressions made parsing and planning the
      // statement cost the server about 450 µs a page, ten times running it for one variant by SKU.
      const compiled = finished.compile();
      namePageStatement(compiled.sql);
      return (await db.executeQuery<JsonPageRow>(compiled)).rows;
    },
  );
  const data = page.data.map((row) => row.row_json).join(",");
  return `{"data":[${data}],"next_cursor":${JSON.stringify(page.next_cursor)},"has_more":${page.has_more}}`;
}
