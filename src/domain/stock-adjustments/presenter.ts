import Big from "big.js";
import type { Db } from "../../db/database.ts";
import { locationNames } from "../catalog/index.ts";
import { isKnownCurrency, UNIT_COST_PLACES, unitCostText } from "../money.ts";
import { JUST_RECORDED, NEVER_MOVED, platformSyncOf, type SyncState } from "../stock/index.ts";
import { type AdjustmentLineRow, type AdjustmentRow, linesOf } from "./repository.ts";
import { reasonLabel, type StockAdjustmentStatus } from "./transitions.ts";

export interface StockAdjustmentLineView {
  id: number;
  position: number;
  product_title: string | null;
  variant_title: string | null;
  sku: string | null;
  barcode: string | null;
  inventory_item_id: number;
  variant_id: number;
  delta: number;
  quantity_before: number | null;
  quantity_after: number | null;
  unit_cost: string;
  lot_id: number | null;
  lot_number: string | null;
  lot_units: number | null;
  /** Added beyond the contract: the level the line was counted against, when given. */
  expected_before: number | null;
}

export interface StockAdjustmentView {
  id: number;
  sequential_id: number;
  number: string;
  status: StockAdjustmentStatus;
  source: string;
  reason: string;
  reason_label: string;
  note: string | null;
  location: { id: number; name: string };
  stocktake_id: number | null;
  reversal_of_id: number | null;
  lines: StockAdjustmentLineView[];
  platform_sync: SyncState;
  applied_at: string | null;
  cancelled_at: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * Unit costs: at least the currency's minor units, at most 8 places (docs/decisions.md, "Money"); 0 when
 * unknown.
 */
export function formatLineUnitCost(value: string | null, currency: string | null): string {
  // From the column's text: a 200-line apply formatted 200 unit costs through big.js (~165 KB).
  if (currency && isKnownCurrency(currency)) return unitCostText(value ?? "0", currency);
  const amount = new Big(value ?? "0");
  // No known currency: two places minimum, zeros beyond them trimmed.
  const text = amount.round(UNIT_COST_PLACES, 1).toFixed(UNIT_COST_PLACES);
  let end = text.length;
  while (text[end - 1] === "0" && end > text.indexOf(".") + 3) end--;
  return text.slice(0, end);
}

export function presentLine(line: AdjustmentLineRow): StockAdjustmentLineView {
  return {
    id: Number(line.id),
    position: line.position,
    product_title: line.product_title,
    variant_title: line.variant_title,
    sku: line.sku,
    barcode: line.barcode,
    inventory_item_id: Number(line.inventory_item_id),
    variant_id: Number(line.variant_id),
    delta: line.delta,
    quantity_before: line.quantity_before,
    quantity_after: line.quantity_after,
    unit_cost: formatLineUnitCost(line.unit_cost, line.unit_cost_currency),
    lot_id: line.lot_id,
    lot_number: line.lot_number,
    lot_units: line.lot_units,
    expected_before: line.expected_before,
  };
}

export function presentAdjustment(
  row: AdjustmentRow,
  lines: readonly AdjustmentLineRow[],
  locationName: string | undefined,
  sync: SyncState,
): StockAdjustmentView {
  return {
    id: row.id,
    sequential_id: row.sequential_id,
    number: row.number,
    status: row.status,
    source: row.source,
    reason: row.reason,
    reason_label: reasonLabel(row.reason),
    note: row.note,
    location: { id: Number(row.location_id), name: locationName ?? row.location_name },
    stocktake_id: row.stocktake_id,
    reversal_of_id: row.reversal_of_id,
    lines: lines.map(presentLine),
    platform_sync: sync,
    applied_at: row.applied_at?.toISOString() ?? null,
    cancelled_at: row.cancelled_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * Presents many adjustments with a fixed number of queries whatever their count (lines, location
 * names, platform_sync: one query each), so a list page never queries per row.
 */
export async function presentAdjustments(
  db: Db,
  storeId: number,
  rows: readonly AdjustmentRow[],
): Promise<StockAdjustmentView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  // One after the other: inside a transaction there is one connection to share.
  const lines = await linesOf(db, storeId, ids);
  const names = await locationNames(
    db,
    storeId,
    rows.map((r) => Number(r.location_id)),
  );
  const syncs = await platformSyncOf(db, storeId, "stock_adjustment", ids);
  const byAdjustment = new Map<number, AdjustmentLineRow[]>();
  for (const line of lines) {
    const list = byAdjustment.get(line.adjustment_id);
    if (list) list.push(line);
    else byAdjustment.set(line.adjustment_id, [line]);
  }
  return rows.map((row) =>
    presentAdjustment(
      row,
      byAdjustment.get(row.id) ?? [],
      names.get(Number(row.location_id)),
      syncs.get(row.id) ?? { state: "synced", attempted_at: null, error: null },
    ),
  );
}

export async function presentOne(db: Db, storeId: number, row: AdjustmentRow): Promise<StockAdjustmentView> {
  const [view] = await presentAdjustments(db, storeId, [row]);
  return view;
}

/**
 * An adjustment just applied, from what the apply holds (no query): its lines, its location's name as
 * read under the lock, and the platform_sync the ledger left (pending once it recorded movements;
 * an adjustment is applied once, so before that it had none).
 */
export function presentApplied(
  row: AdjustmentRow,
  lines: readonly AdjustmentLineRow[],
  locationName: string | null,
  movedStock: boolean,
): StockAdjustmentView {
  return presentAdjustment(row, lines, locationName ?? undefined, movedStock ? JUST_RECORDED : NEVER_MOVED);
}
