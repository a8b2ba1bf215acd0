import type { RequestLogView } from "../admin/views.ts";
import type { Page, PageRequest } from "../db/keyset-paging.ts";
import { keysetPage } from "../db/keyset-paging.ts";
import { getStore } from "../domain/stores/index.ts";
import type { HttpContext } from "./context.ts";

/**
 * The API's request log of a store, newest first, as the admin API lists it. The log is written in
 * batches (`plugins/request-log.ts`): what is still buffered is flushed first, so a request answered
 * before this one is listed. An unknown store is 404.
 */

export interface RequestLogFilters extends PageRequest {
  key_id?: number;
  status?: number;
}

export async function listRequestLog(
  ctx: HttpContext,
  storeId: number,
  filters: RequestLogFilters,
): Promise<Page<RequestLogView>> {
  await getStore(ctx.db, storeId);
  await ctx.requestLog.flush();
  const { key_id, status } = filters;
  let query = ctx.db.selectFrom("request_log as r").selectAll().where("r.store_id", "=", storeId);
  if (key_id !== undefined) query = query.where("r.key_id", "=", key_id);
  if (status !== undefined) query = query.where("r.status", "=", status);
  const page = await keysetPage(
    query,
    filters,
    {
      timeColumn: "r.created_at",
      idColumn: "r.id",
      direction: "desc",
      createdColumn: "r.created_at",
      binding: { list: "request_log", store: storeId, key_id, status },
    },
    ctx.cursorSecret,
    (row) => ({ time: row.created_at, id: row.id }),
  );
  return {
    ...page,
    data: page.data.map((r) => ({
      id: r.id,
      key_id: r.key_id,
      method: r.method,
      path: r.path,
      status: r.status,
      duration_ms: r.duration_ms,
      idempotency_key: r.idempotency_key,
      request_id: r.request_id,
      created_at: r.created_at.toISOString(),
    })),
  };
}
