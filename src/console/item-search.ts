import type { StoreApi } from "./store-api.ts";

/**
 * Finding an item by what the merchant knows of it: a SKU or barcode (exact, as scanned or typed) or
 * words of its title. The API filters variants by exact SKU and barcode; titles are matched here over
 * the store's variants, read page by page (at most MAX_PAGES of them), since the API has no title
 * search. The console writes nothing and runs no SQL of its own.
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

export function itemLabel(v: Pick<Variant, "product_title" | "title">): string {
  const title = v.title && v.title !== "Default Title" ? v.title : null;
  return [v.product_title, title].filter(Boolean).join(" – ") || "Untitled item";
}

/** Variants matching `query`: an exact SKU or barcode first, then every word found in the title. */
export async function searchItems(api: StoreApi, query: string, limit = 25): Promise<Variant[]> {
  const q = query.trim();
  if (q === "") return [];
  const exact = [
    ...(await api.get<Page<Variant>>(`/variants?sku=${encodeURIComponent(q)}`)).data,
    ...(await api.get<Page<Variant>>(`/variants?barcode=${encodeURIComponent(q)}`)).data,
  ];
  const words = q.toLowerCase().split(/\s+/);
  const byTitle = (await allVariants(api)).filter((v) => {
    const text = `${itemLabel(v)} ${v.sku ?? ""}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
  const seen = new Set<number>();
  return [...exact, ...byTitle].filter((v) => !seen.has(v.id) && seen.add(v.id)).slice(0, limit);
}
