import type { PageContext } from "../context.ts";
import { type CatalogRow, catalogRowsOf, catalogTerms, type DraftState, lineLabel } from "../draft-order.ts";
import { searchItems, type Variant, variantsOfItems } from "../item-search.ts";
import { type Location, locationsOf } from "../stock-levels.ts";
import { type StoreApi, storeApi } from "../store-api.ts";
import { type StoreInfo, storeInfoOf } from "../store-pages.ts";
import { pickSupplier, type SupplierFilter, supplierFieldValue } from "../supplier-filter.ts";

/**
 * What the draft editor shows besides the draft itself: the supplier as typed and settled, the
 * supplier's catalog terms, the picker's items, locations and tax rates, in a bounded number of API
 * calls, none per line.
 */

export interface Page<T> {
  data: T[];
}

export interface TaxRate {
  id: number;
  name: string;
  rate_percent: string | number;
}

export interface EditorData {
  store: StoreInfo;
  supplier: SupplierFilter;
  locations: Location[];
  terms: Map<number, CatalogRow>;
  found: Variant[];
  /** With nothing typed, how many of the supplier's catalog items the picker could not show. */
  moreInCatalog: number;
  currency: string;
  taxRates: TaxRate[];
}

/** The picker's list: this many items, found or (nothing typed) browsed. */
const PICKER_ROWS = 25;

/**
 * With nothing typed, the picker lists the supplier's catalog items (by name, up to PICKER_ROWS) with
 * their terms and tier prices, then the store's other items to fill the list: what this supplier sells
 * is what an order to it is mostly made of. Two API calls (the catalog's variants by item, a page of
 * the store's variants).
 */
async function browseItems(api: StoreApi, terms: Map<number, CatalogRow>): Promise<Variant[]> {
  const catalogIds = [...terms.keys()].slice(0, PICKER_ROWS);
  const [inCatalog, others] = await Promise.all([
    catalogIds.length === 0 ? Promise.resolve([]) : variantsOfItems(api, catalogIds),
    catalogIds.length >= PICKER_ROWS
      ? Promise.resolve({ data: [] as Variant[] })
      : api.get<Page<Variant>>(`/variants?limit=${PICKER_ROWS + catalogIds.length}`),
  ]);
  const byName = (a: Variant, b: Variant) =>
    lineLabel(a.product_title, a.title).localeCompare(lineLabel(b.product_title, b.title));
  const rest = others.data.filter((v) => !terms.has(v.inventory_item_id));
  return [...inCatalog.sort(byName), ...rest].slice(0, PICKER_ROWS);
}

/**
 * The supplier the form names (a choice among offered ones, the one it held, or the name typed): the
 * draft then holds its id and name, or keeps the text as typed with no id.
 */
export async function settleSupplier(ctx: PageContext, draft: DraftState): Promise<SupplierFilter> {
  const picked = await pickSupplier(
    storeApi(ctx.request),
    draft.supplierText,
    draft.supplierId,
    draft.supplierChoice,
  );
  draft.supplierId = picked.kind === "supplier" ? String(picked.supplier.id) : "";
  draft.supplierText = supplierFieldValue(picked);
  draft.supplierChoice = "";
  return picked;
}

/** The settled supplier's catalog terms, the rows of `itemIds` among them (lines, an added item). */
export type SupplierTerms = (itemIds?: readonly (number | null)[]) => Promise<Map<number, CatalogRow>>;

/**
 * The catalog terms of the supplier the form names, read once per request however many steps of the
 * request use them (adding an item, a save's tier prices, drawing the editor); a catalog that cannot
 * be read gives no terms rather than no page. The picker browses the first thousand rows; the items
 * asked for past those (a catalog over 1,000 items) are read by id, each once, so every line has its
 * tier price and warnings whatever the catalog's size.
 */
export function supplierTerms(api: StoreApi, supplierId: number | null): SupplierTerms {
  let read: Promise<{ rows: Map<number, CatalogRow>; complete: boolean }> | null = null;
  const asked = new Set<number>();
  return async (itemIds = []) => {
    read ??= catalogTerms(api, supplierId).catch(() => ({
      rows: new Map<number, CatalogRow>(),
      complete: true,
    }));
    const { rows, complete } = await read;
    if (complete || supplierId === null) return rows;
    const missing = [...new Set(itemIds)].filter(
      (id): id is number => id !== null && !rows.has(id) && !asked.has(id),
    );
    if (missing.length === 0) return rows;
    for (const id of missing) asked.add(id);
    const found = await catalogRowsOf(api, supplierId, missing).catch(() => []);
    for (const row of found) rows.set(row.inventory_item_id, row);
    return rows;
  };
}

/**
 * Items a search found, with the supplier's terms of each read by id when the catalog is too long to
 * have been read whole (over 1,000 items): the 1,001st item found by its SKU is marked "From this
 * supplier" with its prices like the first, and the supplier's items come first, as they do below that.
 */
async function foundWithTheirTerms(found: Variant[], terms: SupplierTerms): Promise<Variant[]> {
  const catalog = await terms(found.map((v) => v.inventory_item_id));
  const group = (v: Variant) => (catalog.has(v.inventory_item_id) ? 0 : 1);
  return found.sort((a, b) => group(a) - group(b));
}

/** The settled supplier's id, null when the form names none. */
export const supplierIdOf = (supplier: SupplierFilter) =>
  supplier.kind === "supplier" ? supplier.supplier.id : null;

/**
 * Everything the editor shows besides the draft: a bounded number of API calls, none per line. `terms`
 * are the settled supplier's (supplierTerms), when the request has read them already.
 */
export async function editorData(
  ctx: PageContext,
  draft: DraftState,
  supplier: SupplierFilter,
  terms: SupplierTerms = supplierTerms(storeApi(ctx.request), supplierIdOf(supplier)),
): Promise<EditorData> {
  const { request } = ctx;
  const api = storeApi(request);
  // The store's tax rates are settings (the admin API's), which every staff member of the store reads.
  const [store, locations, catalog, taxRates] = await Promise.all([
    storeInfoOf(request),
    locationsOf(api),
    terms(draft.lines.map((l) => l.itemId)),
    ctx.admin.get<Page<TaxRate>>(`/admin/stores/${api.storeId}/tax_rates`).then((r) => r.data),
  ]);
  // The supplier's catalog items first, typed or not: what this supplier sells, at its prices.
  const found =
    draft.itemQ === ""
      ? await browseItems(api, catalog)
      : await foundWithTheirTerms(
          await searchItems(api, draft.itemQ, PICKER_ROWS, new Set(catalog.keys())),
          terms,
        );
  const shownFromCatalog = found.filter((v) => catalog.has(v.inventory_item_id)).length;
  const currency =
    knownCurrency(draft.currency) ||
    (supplier.kind === "supplier" ? supplier.supplier.currency : null) ||
    store.currency;
  return {
    store,
    supplier,
    locations,
    terms: catalog,
    found,
    moreInCatalog: draft.itemQ === "" ? Math.max(0, catalog.size - shownFromCatalog) : 0,
    currency,
    taxRates,
  };
}

/** Decimal places of a currency, as the API rounds to them. */
export function minorUnits(currency: string): number {
  try {
    return (
      new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ??
      2
    );
  } catch {
    return 2;
  }
}

/** A currency code as typed, when it is one (a refused "US" must not break the page that says so). */
export const knownCurrency = (code: string) => (/^[A-Z]{3}$/.test(code) && minorUnits(code) >= 0 ? code : "");
