/**
 * Purchase order lists: orders (keyset; oldest update first unless `sort` says otherwise) and history
 * (newest first).
 */

import { sql } from "kysely";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { keysetPage, type Page, type PageRequest } from "../../db/keyset-paging.ts";
import { AppError, notFound } from "../errors.ts";
import { LINES_PER_PAGE } from "./line-cap.ts";
import { orderRecordQuery, presentSummaries } from "./loading.ts";
import type { OrderRecord, PurchaseOrderSummary } from "./presenter.ts";
import { orderExists } from "./repository.ts";
import { type PurchaseOrderStatus, STATUSES } from "./transitions.ts";

/** `status=ordered,partial` → statuses; an unknown one is 400 invalid_filter. */
export function parseStatusFilter(value: string | undefined): PurchaseOrderStatus[] | undefined {
  if (value === undefined) return undefined;
  const parts = value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const unknown = parts.filter((p) => !STATUSES.includes(p as PurchaseOrderStatus));
  if (unknown.length > 0 || parts.length === 0) {
    throw new AppError(
      "invalid_filter",
      `Unknown purchase order status in the status filter: ${unknown.join(", ") || "(empty)"}. Known: ${STATUSES.join(", ")}.`,
    );
  }
  return [...new Set(parts)].sort() as PurchaseOrderStatus[];
}

/** The orders a list may be sorted by: a time column, ascending or (`-`) descending, ties by id. */
export const ORDER_SORTS = ["updated_at", "-updated_at", "created_at", "-created_at"] as const;
export type OrderSort = (typeof ORDER_SORTS)[number];

/** `LIKE` matches the text as it is: its own wildcards and the escape character are escaped. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export interface OrderListFilters extends PageRequest {
  /** Text found (any case) in the order's number, reference or the supplier's order number. */
  q?: string;
  sort?: OrderSort;
  statuses?: PurchaseOrderStatus[];
  supplier_id?: number;
  location_id?: number;
  type?: "purchase" | "return";
  archived?: "true" | "false" | "all";
  /** false: the orders without their lines (`lines: []`), the page bounded by `limit` alone. */
  lines?: boolean;
}

export async function listPurchaseOrders(
  ctx: AppContext,
  db: Db,
  storeId: number,
  filters: OrderListFilters,
  listName = "purchase_orders",
): Promise<Page<PurchaseOrderSummary>> {
  return listPurchaseOrdersAs(ctx, db, storeId, filters, listName, (orders, withLines) =>
    presentSummaries(db, storeId, orders, withLines),
  );
}

/**
 * The list page of listPurchaseOrders, each row presented by `present` (its lines wanted or not):
 * the route presents them with their lines as PostgreSQL's JSON text (text-read.ts).
 */
export async function listPurchaseOrdersAs<Row>(
  ctx: AppContext,
  db: Db,
  storeId: number,
  filters: OrderListFilters,
  listName: string,
  present: (orders: OrderRecord[], withLines: boolean) => Promise<Row[]>,
): Promise<Page<Row>> {
  const withLines = filters.lines !== false;
  // Each row's line count, so a page of big orders ends before its lines exceed LINES_PER_PAGE; a page
  // without lines needs none (a list of 50 orders spent a third of its time on lines it did not show).
  let query = orderRecordQuery(db, storeId).select(
    withLines
      ? sql<number>`(select count(*)::int from purchase_order_lines l where l.store_id = po.store_id and l.purchase_order_id = po.id)`.as(
          "line_count",
        )
      : sql<number>`0`.as("line_count"),
  );
  const archived = filters.archived ?? "false";
  if (archived === "true") query = query.where("po.archived", "=", true);
  else if (archived === "false") query = query.where("po.archived", "=", false);
  if (filters.statuses) query = query.where("po.status", "in", filters.statuses);
  if (filters.supplier_id !== undefined) query = query.where("po.supplier_id", "=", filters.supplier_id);
  if (filters.location_id !== undefined) query = query.where("po.location_id", "=", filters.location_id);
  if (filters.type !== undefined) query = query.where("po.type", "=", filters.type);
  const q = filters.q?.trim() ?? "";
  if (q !== "") {
    const pattern = containsPattern(q);
    query = query.where((eb) =>
      eb.or([
        eb("po.number", "ilike", pattern),
        eb("po.reference", "ilike", pattern),
        eb("po.supplier_order_number", "ilike", pattern),
      ]),
    );
  }
  const sort = filters.sort ?? "updated_at";
  const byCreation = sort.endsWith("created_at");
  const page = await keysetPage(
    query,
    filters,
    {
      timeColumn: byCreation ? "po.created_at" : "po.updated_at",
      idColumn: "po.id",
      direction: sort.startsWith("-") ? "desc" : "asc",
      updatedColumn: "po.updated_at",
      createdColumn: "po.created_at",
      binding: {
        list: listName,
        store: storeId,
        q: q === "" ? undefined : q,
        // The default sort stays out of the binding, so cursors issued before `sort` existed still hold.
        sort: sort === "updated_at" ? undefined : sort,
        status: filters.statuses?.join(","),
        supplier_id: filters.supplier_id,
        location_id: filters.location_id,
        type: filters.type,
        archived,
      },
    },
    ctx.cursorSecret,
    (row) => ({ time: byCreation ? row.created_at : row.updated_at, id: row.id }),
    withLines ? { weight: (row) => row.line_count, max: LINES_PER_PAGE } : undefined,
  );
  return { ...page, data: await present(page.data as OrderRecord[], withLines) };
}

export interface HistoryRowView {
  type: string;
  at: string;
  by: string;
  via: string | null;
  data: Record<string, unknown>;
}

export async function listHistory(
  ctx: AppContext,
  db: Db,
  storeId: number,
  orderId: number,
  params: PageRequest,
): Promise<Page<HistoryRowView>> {
  if (!(await orderExists(db, storeId, orderId))) throw notFound("purchase order");
  const query = db
    .selectFrom("purchase_order_history as h")
    .selectAll("h")
    .where("h.store_id", "=", storeId)
    .where("h.purchase_order_id", "=", orderId);
  const page = await keysetPage(
    query,
    params,
    {
      timeColumn: "h.at",
      idColumn: "h.id",
      direction: "desc",
      updatedColumn: "h.at",
      createdColumn: "h.at",
      binding: { list: "purchase_order_history", store: storeId, order: orderId },
    },
    ctx.cursorSecret,
    (row) => ({ time: row.at, id: row.id }),
  );
  return {
    ...page,
    data: page.data.map((h) => ({
      type: h.type,
      at: h.at.toISOString(),
      by: h.by_name,
      via: h.via,
      data: h.data ?? {},
    })),
  };
}
