import { AppError } from "../errors.ts";

/**
 * Lines one purchase order may hold. An order is one supplier's delivery: even a full reorder of a
 * large supplier's range is a few hundred lines, while an unbounded order made every read of it
 * unbounded too (a 5,000-line order was 3 s of PDF and a list page of 60 MB). docs/decisions.md.
 */
export const MAX_LINES_PER_ORDER = 500;

export { LINES_PER_PAGE } from "../../db/keyset-paging.ts";

/** 422 `limit_reached` on `field` when an order would hold more than MAX_LINES_PER_ORDER lines. */
export function assertLineCap(lineCount: number, field: string): void {
  if (lineCount <= MAX_LINES_PER_ORDER) return;
  const message = `an order holds at most ${MAX_LINES_PER_ORDER} lines; this would make ${lineCount}`;
  throw new AppError("limit_reached", `${field}: ${message}.`, [{ field, code: "limit_reached", message }]);
}
