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
/** SKUs one request names (the API's cap for a repeated `sku`). */
const SKUS_PER_CALL = 250;
/** A request's query kept under this many characters, whatever the SKUs' length. */
const QUERY_CHARS = 8_000;

/** The SKUs in groups one request each can name: at most SKUS_PER_CALL, and a query of bounded length. */
export function skuGroups(skus: readonly string[]): string[][] {
  const groups: string[][] = [];
  let group: string[] = [];
  let chars = 0;
  for (const sku of skus) {
    const cost = new URLSearchParams([["sku", sku]]).toString().length + 1;
    if (group.length > 0 && (group.length === SKUS_PER_CALL || chars + cost > QUERY_CHARS)) {
      groups.push(group);
      group = [];
      chars = 0;
    }
    group.push(sku);
    chars += cost;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/**
 * Every variant of the store having each of these SKUs (exact), in the API's order, read by the SKUs
 * themselves (GET /v2/variants?sku=…&sku=…, 250 a call), so a CSV of 250 rows costs one call in a
 * store of 100 items as in one of 100,000. A SKU is not unique in a store: each group's pages are read
 * to the end, so a SKU several variants share comes back with all of them (a page more per 250 extra
 * matches; none when every SKU is one variant's) and the import can refuse it rather than guess.
 */
export async function variantsBySku(api: StoreApi, skus: readonly string[]): Promise<Map<string, Variant[]>> {
  const wanted = [...new Set(skus.filter((s) => s !== ""))];
  const found = new Map<string, Variant[]>();
  await Promise.all(
    skuGroups(wanted).map(async (group) => {
      const named = new Set(group);
      let cursor: string | null = null;
      do {
        const query = new URLSearchParams(group.map((sku) => ["sku", sku]));
        query.set("limit", String(PAGE_SIZE));
        if (cursor) query.set("cursor", cursor);
        const res: Page<Variant> = await api.get(`/variants?${query}`);
        for (const v of res.data) {
          if (v.sku === null || !named.has(v.sku)) continue;
          const same = found.get(v.sku);
          if (same) same.push(v);
          else found.set(v.sku, [v]);
        }
        cursor = res.has_more ? res.next_cursor : null;
      } while (cursor);
    }),
  );
  return found;
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
