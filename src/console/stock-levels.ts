import type { StoreApi } from "./store-api.ts";

/**
 * The API's stock levels for people (`GET /v2/stock_levels`): what the console's stock, low-stock and
 * adjustment pages read, so each page is one call whatever its number of rows.
 */

export interface StockLevel {
  id: number;
  inventory_item_id: number;
  variant_id: number | null;
  product_title: string | null;
  variant_title: string | null;
  sku: string | null;
  barcode: string | null;
  location: { id: number; name: string | null };
  available: number;
  on_hand: number;
  committed: number;
  incoming: number;
  on_order: number;
  low_stock_threshold: number | null;
  reorder_point: number | null;
  max_stock: number | null;
  below: ("low_stock" | "reorder_point")[];
  suggested_quantity: number | null;
  primary_supplier: { id: number; name: string } | null;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface Location {
  id: number;
  name: string;
}

/** Pages of locations read at most: a platform's location limit is far below 20 × 250. */
const LOCATION_PAGES = 20;

/**
 * The store's visible locations, every one of them (a store has a handful: one call; a select that
 * offered only the first page left the others out of every filter and form).
 */
export async function locationsOf(api: StoreApi): Promise<Location[]> {
  const out: Location[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < LOCATION_PAGES; page++) {
    const res: Page<Location> = await api.get(
      `/locations?limit=250${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    out.push(...res.data);
    if (!res.has_more || !res.next_cursor) break;
    cursor = res.next_cursor;
  }
  return out;
}

/** "Mug – Blue": the product and, unless the platform's placeholder, the variant. */
export function levelItemLabel(
  l: Pick<StockLevel, "product_title" | "variant_title" | "inventory_item_id">,
): string {
  const variant = l.variant_title && l.variant_title !== "Default Title" ? l.variant_title : null;
  return [l.product_title, variant].filter(Boolean).join(" – ") || `Item ${l.inventory_item_id}`;
}

/** The levels of these items at one location, by item (up to 250 items a call). */
export async function levelsAt(
  api: StoreApi,
  locationId: number,
  itemIds: readonly number[],
): Promise<Map<number, StockLevel>> {
  const out = new Map<number, StockLevel>();
  const ids = [...new Set(itemIds)];
  for (let i = 0; i < ids.length; i += 250) {
    const chunk = ids.slice(i, i + 250).join(",");
    const res = await api.get<Page<StockLevel>>(
      `/stock_levels?limit=250&location_id=${locationId}&inventory_item_id=${chunk}`,
    );
    for (const level of res.data) out.set(level.inventory_item_id, level);
  }
  return out;
}
