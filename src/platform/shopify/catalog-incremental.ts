import type { CatalogChanges, PlatformItemCost, PlatformVariant } from "../connector.ts";
import { bulkQueryLines } from "./bulk-read.ts";
import type { ImportDeps, IncrementalWatermark } from "./catalog-import.ts";
// The catalog's node vocabulary (selections, node shapes, their mapping), shared with the import.
import * as catalog from "./catalog-nodes.ts";
import type { ShopifyClient } from "./client.ts";
import { fromGid, toGid } from "./gids.ts";

/**
 * Reads what changed after the import (docs/decisions.md, "Shopify connector"): per resource,
 * `updated_at:>` its own watermark less OVERLAP_MS (a row written while the last read ran, with an
 * earlier updatedAt, is still found), every page, mapped like the import. Each resource's watermark
 * becomes the newest updatedAt it read less the read's own length (nextWatermark; unchanged when
 * nothing came). Rows inside the overlap are read again; the mirror takes a repeat as no change.
 */
export const OVERLAP_MS = 60_000;

type Since = IncrementalWatermark["since"];

interface ItemNode {
  id: string;
  updatedAt: string;
  unitCost: { amount: string; currencyCode: string } | null;
  variant: { id: string } | null;
}

type ChangedVariant = catalog.VariantNode & { product: { id: string } };

interface Page<T> {
  nodes: T[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/** One root connection read to its end. */
interface ConnectionRead {
  /** The root field, e.g. `products`. */
  field: string;
  /** Arguments besides first, after and query, e.g. `sortKey: UPDATED_AT`. */
  args?: string;
  selection: string;
  /** The `updated_at:>` search, or null for every row. */
  query: string | null;
  /** Shopify's points for one node: a page requests 2 + first × this. */
  nodeCost: number;
  first: number;
}

/**
 * Shopify's cutoff for paginated reads (shopify.dev, "API limits": pagination stops at 25,000
 * objects). Past it a read does not say so reliably (the stand-in, like the worst case, answers
 * hasNextPage false), so a read never asks for a page that would reach it: it switches to a bulk
 * operation instead.
 */
export const PAGING_LIMIT = 25_000;

/** What an incremental read needs besides the client: bulk operations for reads past the cutoff. */
export interface ChangesDeps extends ImportDeps {
  /** PAGING_LIMIT in production; smaller in tests, as the stand-in's shop is told. */
  pagingLimit: number;
}

interface Reader {
  client: ShopifyClient;
  deps: ChangesDeps;
}

/**
 * A root connection's rows: paged while the rows stay under the cutoff, else (a bulk edit of
 * 40,000 variants) every row again through one bulk query with the same search. Pages read before
 * the switch are dropped: the bulk result has them too.
 */
async function readAll<T>(reader: Reader, read: ConnectionRead): Promise<T[]> {
  const paged = await readPages<T>(reader, read);
  if (paged !== null) return paged;
  const args = [read.query === null ? "" : `query: ${JSON.stringify(read.query)}`, read.args ?? ""]
    .filter((a) => a !== "")
    .join(", ");
  const lines = await bulkQueryLines(
    reader.client,
    reader.deps,
    `{ ${read.field}${args ? `(${args})` : ""} { edges { node { ${read.selection} } } } }`,
  );
  return lines as unknown as T[];
}

/**
 * The next page's size: `size`, or less so that the rows read stay below the cutoff (a page ending
 * below it tells the truth about hasNextPage); 0 when no row is left below it.
 */
function pageBelowCutoff(reader: Reader, read: number, size: number): number {
  return Math.max(0, Math.min(size, reader.deps.pagingLimit - 1 - read));
}

/** Every page of the connection, or null when reading on would reach Shopify's cutoff. */
async function readPages<T>(reader: Reader, read: ConnectionRead): Promise<T[] | null> {
  const args = [read.query === null ? "" : ", query: $query", read.args ? `, ${read.args}` : ""].join("");
  const document = `query Changes($first: Int!, $after: String${read.query === null ? "" : ", $query: String!"}) {
  page: ${read.field}(first: $first, after: $after${args}) { nodes { ${read.selection} } pageInfo { hasNextPage endCursor } }
}`;
  const rows: T[] = [];
  let after: string | null = null;
  do {
    const first = pageBelowCutoff(reader, rows.length, read.first);
    if (first === 0) return null;
    const variables = { first, after, ...(read.query === null ? {} : { query: read.query }) };
    const answer: { data: { page: Page<T> } } = await reader.client.graphql<{ page: Page<T> }>(
      document,
      variables,
      2 + first * read.nodeCost,
    );
    rows.push(...answer.data.page.nodes);
    after = answer.data.page.pageInfo.hasNextPage ? answer.data.page.pageInfo.endCursor : null;
  } while (after !== null);
  return rows;
}

/**
 * `updated_at:>` the watermark less the overlap, written as Shopify writes a DateTime (whole seconds,
 * `'…55Z'`, the form its search syntax shows) whatever form the watermark has: the time is cut to its
 * second, which only widens the search.
 */
const searchAfter = (since: string) => {
  const from = Math.floor((Date.parse(since) - OVERLAP_MS) / 1000) * 1000;
  return `updated_at:>'${new Date(from).toISOString().slice(0, 19)}Z'`;
};

/**
 * The watermark after a read: the newest of `since` and the rows' `updatedAt`, compared as instants
 * and kept as written (Shopify's whole seconds, `…55Z`; a watermark written with a fraction, `…55.123Z`,
 * as the stand-in did before it wrote whole seconds, is later than `…55Z` though '.' sorts before 'Z'),
 * so it never goes back.
 */
const newest = (since: string, rows: ReadonlyArray<{ updatedAt: string }>) => {
  let max = since;
  let maxAt = Date.parse(since);
  for (const row of rows) {
    const at = Date.parse(row.updatedAt);
    if (at > maxAt) {
      max = row.updatedAt;
      maxAt = at;
    }
  }
  return max;
};

/**
 * Each row once, as its last read brought it. A read ordered by a field a change moves (products by
 * `UPDATED_AT`, locations by name) meets a row changed after its page again on a later page, which
 * read it later; two rows of one id in one batch would also make the mirror's upsert touch a row
 * twice in one statement, which PostgreSQL refuses (the whole sync failed).
 */
function lastReadOf<T extends { id: string }>(rows: readonly T[]): T[] {
  const byId = new Map<string, T>();
  for (const row of rows) {
    byId.delete(row.id);
    byId.set(row.id, row);
  }
  return [...byId.values()];
}

/**
 * The watermark after a read that took `readMs` (by the service's clock, from before its first request
 * to after its last answer): the newest updatedAt read, less the read's own length, and never before
 * `since`. A read is not a snapshot: a row changed after its page went by (variants, items and
 * levels are not paged by updatedAt; levels location by location) is not in it, while a row changed
 * later on a later page is, and its updatedAt became the watermark; a read longer than the overlap
 * left the first change before the next search's start, missed for good. Every row read was read by
 * the read's end, so the newest updatedAt less the read's length is no later than the read's start,
 * and no change after that start is left behind: a read of any length misses nothing. A duration, so
 * Shopify's clock and ours need not agree. A read of no measurable length keeps the newest as written.
 */
export function nextWatermark(since: string, rows: ReadonlyArray<{ updatedAt: string }>, readMs: number) {
  const top = newest(since, rows);
  if (top === since || readMs <= 0) return top;
  const at = Date.parse(top) - readMs;
  return at > Date.parse(since) ? new Date(at).toISOString() : since;
}

export async function readCatalogChanges(
  client: ShopifyClient,
  deps: ChangesDeps,
  watermark: IncrementalWatermark,
): Promise<CatalogChanges> {
  const reader: Reader = { client, deps };
  const { since } = watermark;
  const search = (key: keyof Since) => searchAfter(since[key]);
  // How long each resource's read took, by the service's clock (nextWatermark).
  const took = async <T>(read: () => Promise<T>): Promise<{ rows: T; ms: number }> => {
    const start = client.now().getTime();
    const rows = await read();
    return { rows, ms: client.now().getTime() - start };
  };
  const locationsRead = await took(async () =>
    lastReadOf(
      await readAll<catalog.LocationNode>(reader, {
        field: "locations",
        args: "includeInactive: true",
        selection: catalog.LOCATION_FIELDS,
        query: search("locations"),
        nodeCost: 3,
        first: 250,
      }),
    ),
  );
  const locations = locationsRead.rows;
  const productsRead = await took(async () =>
    lastReadOf(
      await readAll<catalog.ProductNode>(reader, {
        field: "products",
        args: "sortKey: UPDATED_AT",
        selection: catalog.PRODUCT_FIELDS,
        query: search("products"),
        // options 1, featured media 3: a page of 150 stays under Shopify's 1,000-point query limit.
        nodeCost: 5,
        first: 150,
      }),
    ),
  );
  const products = productsRead.rows;
  const variantsRead = await took(() =>
    readAll<ChangedVariant>(reader, {
      field: "productVariants",
      selection: `${catalog.VARIANT_FIELDS} product { id }`,
      query: search("variants"),
      // image 1, inventory item 4 (cost, measurement and weight), product 1: 125 a page.
      nodeCost: 7,
      first: 125,
    }),
  );
  const changedVariants = variantsRead.rows;
  // A lower bound of when each item was read: a cost set by a push answered before it is in the read.
  const itemsReadAt = client.now();
  const itemsRead = await took(() =>
    readAll<ItemNode>(reader, {
      field: "inventoryItems",
      selection: "id updatedAt unitCost { amount currencyCode } variant { id }",
      query: search("inventoryItems"),
      nodeCost: 3,
      first: 250,
    }),
  );
  const items = itemsRead.rows;
  // A variant's weight (and cost, tracking) live on its inventory item: editing only them moves the
  // item's updatedAt, not the variant's, so the variants search above does not find it. The variants
  // of changed items are read again by id.
  const variants = [...changedVariants, ...(await variantsOfItems(client, items, changedVariants))];
  const levelsRead = await took(() => readLevelChanges(reader, since.levels));
  const { levels, locationIds } = levelsRead.rows;

  const next: IncrementalWatermark = {
    since: {
      locations: nextWatermark(since.locations, locations, locationsRead.ms),
      products: nextWatermark(since.products, products, productsRead.ms),
      variants: nextWatermark(since.variants, changedVariants, variantsRead.ms),
      inventoryItems: nextWatermark(since.inventoryItems, items, itemsRead.ms),
      levels: nextWatermark(
        since.levels,
        levels.map((l) => l.node),
        levelsRead.ms,
      ),
    },
  };
  const itemCosts: PlatformItemCost[] = items.map((item) => ({
    inventoryItemId: fromGid(item.id, "InventoryItem"),
    unitCost: item.unitCost?.amount ?? null,
    currency: item.unitCost?.currencyCode ?? null,
    updatedAt: new Date(item.updatedAt),
    readAt: itemsReadAt,
  }));
  const lists = await variantLists(client, [
    ...new Set([...products.map((p) => p.id), ...variants.map((v) => v.product.id)]),
  ]);
  return {
    locations: catalog.toLocations(locations),
    products: catalog.toProducts(products),
    variants: positioned(lists, variants),
    itemCosts,
    variantSets: lists.complete,
    removedProductIds: lists.gone,
    levels: catalog.toLevels(levels),
    // Every location Shopify has, read for the levels: one the mirror holds that is not here was
    // deleted (no updated_at search finds a row that is gone).
    locationSet: locationIds,
    watermark: JSON.stringify(next),
    hasMore: false,
  };
}

// VARIANT_FIELDS and product: 7 points a variant, so 125 ids keep a read under 1,000 points.
const VARIANTS_BY_ID = 125;

/** The variants of changed inventory items that the variants search did not bring (deleted ones left out). */
async function variantsOfItems(
  client: ShopifyClient,
  items: readonly ItemNode[],
  known: readonly ChangedVariant[],
): Promise<ChangedVariant[]> {
  const have = new Set(known.map((v) => v.id));
  const ids = [...new Set(items.flatMap((item) => (item.variant ? [item.variant.id] : [])))].filter(
    (id) => !have.has(id),
  );
  const read: ChangedVariant[] = [];
  for (let start = 0; start < ids.length; start += VARIANTS_BY_ID) {
    const part = ids.slice(start, start + VARIANTS_BY_ID);
    const answer = await client.graphql<{ nodes: Array<ChangedVariant | null> }>(
      `query ItemVariants($ids: [ID!]!) { nodes(ids: $ids) { ... on ProductVariant { ${catalog.VARIANT_FIELDS} product { id } } } }`,
      { ids: part },
      2 + part.length * 7,
    );
    for (const node of answer.data.nodes) if (node?.id) read.push(node);
  }
  return read;
}

/**
 * Changed levels of every location (Shopify filters levels by updated_at under a location), paged
 * location by location; when one location's changes would page past the cutoff, all of them are read
 * again as one bulk query over every location (its level lines name their location in __parentId).
 * Also answers every location's id, inactive ones included, as read before the levels.
 */
async function readLevelChanges(
  reader: Reader,
  since: string,
): Promise<{ levels: catalog.LocatedLevelNode[]; locationIds: number[] }> {
  const all = await readAll<{ id: string }>(reader, {
    field: "locations",
    args: "includeInactive: true",
    selection: "id",
    query: null,
    nodeCost: 1,
    first: 250,
  });
  const locationIds = all.map((l) => fromGid(l.id, "Location"));
  const query = searchAfter(since);
  const changed: catalog.LocatedLevelNode[] = [];
  for (const location of all) {
    // Before its first page: a lower bound of when each of its levels was read.
    const readAt = reader.client.now();
    const nodes = await readLevelsOf(reader, location.id, query);
    if (nodes === null) return { levels: await bulkLevelChanges(reader, query), locationIds };
    const locationId = fromGid(location.id, "Location");
    for (const node of nodes) changed.push({ node, locationId, readAt });
  }
  return { levels: changed, locationIds };
}

async function bulkLevelChanges(reader: Reader, query: string): Promise<catalog.LocatedLevelNode[]> {
  const lines = await bulkQueryLines(
    reader.client,
    reader.deps,
    `{ locations(includeInactive: true) { edges { node { id
    inventoryLevels(query: ${JSON.stringify(query)}) { edges { node { ${catalog.LEVEL_FIELDS} } } } } } } }`,
  );
  const changed: catalog.LocatedLevelNode[] = [];
  for (const line of lines) {
    const parent = typeof line.__parentId === "string" ? line.__parentId : "";
    if (parent.startsWith("gid://shopify/Location/") && "quantities" in line)
      changed.push({ node: line as unknown as catalog.LevelNode, locationId: fromGid(parent, "Location") });
  }
  return changed;
}

/** One location's changed levels, or null when they would page past the cutoff. */
async function readLevelsOf(
  reader: Reader,
  locationId: string,
  query: string,
): Promise<catalog.LevelNode[] | null> {
  const rows: catalog.LevelNode[] = [];
  let after: string | null = null;
  do {
    const first = pageBelowCutoff(reader, rows.length, LEVELS_PER_PAGE);
    if (first === 0) return null;
    const answer: { data: { location: { inventoryLevels: Page<catalog.LevelNode> } | null } } =
      await reader.client.graphql(
        `query LevelChanges($id: ID!, $query: String!, $first: Int!, $after: String) {
  location(id: $id) { inventoryLevels(first: $first, after: $after, query: $query) { nodes { ${catalog.LEVEL_FIELDS} } pageInfo { hasNextPage endCursor } } }
}`,
        { id: locationId, query, first, after },
        3 + first * 3,
      );
    const page = answer.data.location?.inventoryLevels;
    if (!page) break; // the location went away between the two reads
    rows.push(...page.nodes);
    after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
  } while (after !== null);
  return rows;
}

const LEVELS_PER_PAGE = 200;

/** The variant ids of some products as Shopify has them now. */
interface VariantLists {
  /** Product GID → its variant ids, sorted (the import's positions). */
  ids: Map<string, number[]>;
  /** Products whose every variant was read: a mirrored variant missing from the list was deleted. */
  complete: Array<{ productId: number; variantIds: number[] }>;
  /** Products Shopify answered null for: deleted since they changed. */
  gone: number[];
}

const VARIANTS_PER_READ = 250;

/**
 * The variant ids of every product that changed or has a changed variant, three products a query:
 * they position the changed variants as the import does (by id within the product) and tell which
 * of a product's mirrored variants were deleted (a deleted variant is in no `updated_at` search;
 * deleting one updates its product). A product with more variants than one read holds is positioned
 * by what was read and its list is not taken as complete.
 */
async function variantLists(client: ShopifyClient, productIds: readonly string[]): Promise<VariantLists> {
  const lists: VariantLists = { ids: new Map(), complete: [], gone: [] };
  for (let start = 0; start < productIds.length; start += 3) {
    const ids = productIds.slice(start, start + 3);
    const answer = await client.graphql<{
      nodes: Array<{
        id: string;
        variants: { nodes: Array<{ id: string }>; pageInfo: { hasNextPage: boolean } };
      } | null>;
    }>(
      `query Siblings($ids: [ID!]!) { nodes(ids: $ids) { ... on Product { id variants(first: ${VARIANTS_PER_READ}) { nodes { id } pageInfo { hasNextPage } } } } }`,
      { ids },
      ids.length * (3 + VARIANTS_PER_READ),
    );
    answer.data.nodes.forEach((product, i) => {
      if (!product) {
        lists.gone.push(fromGid(ids[i], "Product"));
        return;
      }
      const variantIds = product.variants.nodes
        .map((v) => fromGid(v.id, "ProductVariant"))
        .sort((a, b) => a - b);
      lists.ids.set(product.id, variantIds);
      if (!product.variants.pageInfo.hasNextPage)
        lists.complete.push({ productId: fromGid(product.id, "Product"), variantIds });
    });
  }
  return lists;
}

/** Positions the changed variants as the import does: by id among their product's variants, from 1. */
function positioned(
  lists: VariantLists,
  variants: ReadonlyArray<catalog.VariantNode & { product: { id: string } }>,
): PlatformVariant[] {
  return variants
    .map((node) => {
      const productId = fromGid(node.product.id, "Product");
      const id = fromGid(node.id, "ProductVariant");
      const position = (lists.ids.get(toGid("Product", productId))?.indexOf(id) ?? -1) + 1;
      return catalog.toVariant(node, productId, Math.max(position, 1));
    })
    .sort((a, b) => a.id - b.id);
}
