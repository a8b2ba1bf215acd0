import type { StoreApi } from "./store-api.ts";

/**
 * Finding an item by what the merchant knows of it: a SKU or barcode (exact, as scanned or typed) or
 * the start of words of its title, SKU or barcode (the API's `q=` search on GET /v2/variants). The
 * console writes nothing and runs no SQL of its own.
 */

export interface Variant {
  id: number;
  inventory_item_id: number;
  title: string | null;
  product_title: string | null;
  sku: string | null;
  barcode: string | null;
  unit_cost: string | null;
  unit_cost_currency: string | null;
}

interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

const PAGE_SIZE = 250;
const MAX_PAGES = 40;

/** Every variant of the store (up to MAX_PAGES pages), in the API's order. */
export async function allVariants(api: StoreApi): Promise<Variant[]> {
  const out: Variant[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = new URLSearchParams({ limit: String(PAGE_SIZE), ...(cursor ? { cursor } : {}) });
    const res: Page<Variant> = await api.get(`/variants?${query}`);
    out.push(...res.data);
    if (!res.has_more || !res.next_cursor) break;
    cursor = res.next_cursor;
  }
  return out;
}

/**
 * The variants of the given inventory items, by item id: only those (250 ids a call, in parallel), so
 * a page that names its rows costs the same in a store of 100 items as in one of 100,000.
 */
export async function variantsByItem(
  api: StoreApi,
  itemIds: readonly number[],
): Promise<Map<number, Variant>> {
  const ids = [...new Set(itemIds)];
  const variants = ids.length === 0 ? [] : await variantsOfItems(api, ids);
  return new Map(variants.map((v) => [v.inventory_item_id, v]));
}

export function itemLabel(v: Pick<Variant, "product_title" | "title">): string {
  const title = v.title && v.title !== "Default Title" ? v.title : null;
  return [v.product_title, title].filter(Boolean).join(" – ") || "Untitled item";
}

/** What the API's search takes: at most 200 characters with a letter or digit among them. */
export function searchable(query: string): string | null {
  const q = query.trim().slice(0, 200);
  return /[\p{L}\p{N}]/u.test(q) ? q : null;
}

/** The variants of these inventory items (GET /v2/variants?inventory_item_id=…, 250 a call). */
export async function variantsOfItems(
  api: StoreApi,
  itemIds: readonly number[],
  query: string | null = null,
): Promise<Variant[]> {
  const chunks: number[][] = [];
  for (let i = 0; i < itemIds.length; i += PAGE_SIZE) chunks.push(itemIds.slice(i, i + PAGE_SIZE));
  const pages = await Promise.all(
    chunks.map((ids) =>
      api.get<Page<Variant>>(
        `/variants?${new URLSearchParams({
          inventory_item_id: ids.join(","),
          limit: String(PAGE_SIZE),
          ...(query !== null && { q: query }),
        })}`,
      ),
    ),
  );
  return pages.flatMap((p) => p.data);
}

/**
 * Variants matching `query`: an exact SKU or barcode first (a scan), then those having every typed word
 * as the start of one of theirs. With `preferred` (a supplier's catalog: inventory item ids), the
 * matching items among them come first, however many other items match: searched among those items
 * too, not only sorted within the first page. Three API calls whatever the catalog's size, and one per
 * 250 preferred items.
 */
export async function searchItems(
  api: StoreApi,
  query: string,
  limit = 25,
  preferred: ReadonlySet<number> = new Set(),
): Promise<Variant[]> {
  const q = searchable(query);
  if (q === null) return [];
  const text = encodeURIComponent(q);
  const [bySku, byBarcode, byWords, amongPreferred] = await Promise.all([
    api.get<Page<Variant>>(`/variants?sku=${text}`),
    api.get<Page<Variant>>(`/variants?barcode=${text}`),
    api.get<Page<Variant>>(`/variants?q=${text}&limit=${limit}`),
    preferred.size === 0 ? Promise.resolve([]) : variantsOfItems(api, [...preferred], q),
  ]);
  const seen = new Set<number>();
  const found = [...bySku.data, ...byBarcode.data, ...amongPreferred, ...byWords.data].filter(
    (v) => !seen.has(v.id) && seen.add(v.id),
  );
  // Stable: a scanned code stays first within its group.
  const group = (v: Variant) => (preferred.has(v.inventory_item_id) ? 0 : 1);
  return found.sort((a, b) => group(a) - group(b)).slice(0, limit);
}
