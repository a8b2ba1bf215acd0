/** The stock adjustment list: keyset-paged, oldest update first, filtered by status and location. */

import { sql } from "kysely";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { keysetPage, LINES_PER_PAGE, type Page, type PageRequest } from "../../db/keyset-paging.ts";
import { AppError } from "../errors.ts";
import { presentAdjustments, type StockAdjustmentView } from "./presenter.ts";
import { adjustmentListQuery } from "./repository.ts";
import { ADJUSTMENT_STATUSES, type StockAdjustmentStatus } from "./transitions.ts";

/** `status=draft,applied`: every value must be a known status (else 400 invalid_filter). */
export function parseStatuses(text: string | undefined): StockAdjustmentStatus[] | undefined {
  if (text === undefined) return undefined;
  const values = [
    ...new Set(
      text
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== ""),
    ),
  ];
  const unknown = values.filter((v) => !ADJUSTMENT_STATUSES.includes(v as StockAdjustmentStatus));
  if (values.length === 0 || unknown.length > 0)
    throw new AppError(
      "invalid_filter",
      `Unknown stock adjustment status ${JSON.stringify(unknown[0] ?? text)}; use ${ADJUSTMENT_STATUSES.join(", ")}.`,
    );
  return values.sort() as StockAdjustmentStatus[];
}

export interface AdjustmentListFilters extends PageRequest {
  /** As the query string has it: comma-separated statuses. */
  status?: string;
  location_id?: number;
}

export async function listAdjustments(
  ctx: AppContext,
  db: Db,
  storeId: number,
  filters: AdjustmentListFilters,
): Promise<Page<StockAdjustmentView>> {
  const statuses = parseStatuses(filters.status);
  // Each adjustment's line count, so a page of big ones ends before its lines exceed LINES_PER_PAGE.
  const query = adjustmentListQuery(db, storeId, { statuses, locationId: filters.location_id }).select(
    sql<number>`(select count(*)::int from stock_adjustment_lines l where l.store_id = sa.store_id and l.adjustment_id = sa.id)`.as(
      "line_count",
    ),
  );
  const page = await keysetPage(
    query,
    filters,
    {
      timeColumn: "sa.updated_at",
      idColumn: "sa.id",
      direction: "asc",
      binding: {
        list: "stock_adjustments",
        store: storeId,
        status: statuses,
        location_id: filters.location_id,
      },
    },
    ctx.cursorSecret,
    (row) => ({ time: row.updated_at, id: row.id }),
    { weight: (row) => row.line_count, max: LINES_PER_PAGE },
  );
  const rows = page.data.map(({ line_count, ...row }) => row);
  return { ...page, data: await presentAdjustments(db, storeId, rows) };
}
