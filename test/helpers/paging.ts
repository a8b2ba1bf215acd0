import assert from "node:assert/strict";
import type { Client } from "./app.ts";

/**
 * Every row of a paged list, following `next_cursor` until `has_more` is false (and checking that the
 * last page's cursor is null), each page asserted 200.
 */
export async function allPages(api: Client, path: string): Promise<any[]> {
  const rows: any[] = [];
  let url = path;
  for (;;) {
    const res = await api.get(url);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    rows.push(...res.body.data);
    if (!res.body.has_more) {
      assert.equal(res.body.next_cursor, null);
      return rows;
    }
    const sep = path.includes("?") ? "&" : "?";
    url = `${path}${sep}cursor=${encodeURIComponent(res.body.next_cursor)}`;
  }
}
