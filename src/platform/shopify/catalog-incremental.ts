import type { CatalogChanges, PlatformItemCost, PlatformVariant } from "../connector.ts";
import type { IncrementalWatermark } from "./catalog-import.ts";
// The catalog's node vocabulary (selections, node shapes, their mapping), shared with the import.
import * as catalog from "./catalog-nodes.ts";
import type { ShopifyClient } from "./client.ts";
import { fromGid, toGid } from "./gids.ts";

/**
 * Reads what changed after the import (docs/decisions.md, "Shopify connector"): per resource,
 * `updated_at:>` its own watermark less OVERLAP_MS (a row written while the last read ran, with an
 * earlier updatedAt, is still found), every page, mapped like the import. Each resource's watermark
 * becomes the newest updatedAt it read (unchanged when nothing came). Rows inside the overlap are read
 * again; the mirror takes a repeat as no change.
 */
export const OVERLAP_MS = 60_000;

type Since = IncrementalWatermark["since"];

interface ItemNode {
  id: string;
  updatedAt: string;
  unitCost: { amount: string; currencyCode: string } | null;
}

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

async function readAll<T>(client: ShopifyClient, read: ConnectionRead): Promise<T[]> {
  const args = [read.query === null ? "" : ", query: $query", read.args ? `, ${read.args}` : ""].join("");
  const document = `query Changes($first: Int!, $after: String${read.query === null ? "" : ", $query: String!"}) {
  page: ${read.field}(first: $first, after: $after${args}) { nodes { ${read.selection} } pageInfo { hasNextPage endCursor } }
}`;
  const rows: T[] = [];
  let after: string | null = null;
  do {
    const variables = { first: read.first, after, ...(read.query === null ? {} : { query: read.query }) };
    const answer: { data: { page: Page<T> } } = await client.graphql<{ page: Page<T> }>(
      document,
      variables,
      2 + read.first * read.nodeCost,
    );
    rows.push(...answer.data.page.nodes);
    after = answer.data.page.pageInfo.hasNextPage ? answer.data.page.pageInfo.endCursor : null;
  } while (after !== null);
  return rows;
}

const searchAfter = (since: string) =>
  `updated_at:>'${new Date(new Date(since).getTime() - OVERLAP_MS).toISOString()}'`;

const newest = (since: string, rows: ReadonlyArray<{ updatedAt: string }>) =>
  rows.reduce((max, row) => (row.updatedAt > max ? row.updatedAt : max), since);

export async function readCatalogChanges(
  client: ShopifyClient,
  watermark: IncrementalWatermark,
): Promise<CatalogChanges> {
  const { since } = watermark;
  const search = (key: keyof Since) => searchAfter(since[key]);
  const locations = await readAll<catalog.LocationNode>(client, {
    field: "locations",
    args: "includeInactive: true",
    selection: catalog.LOCATION_FIELDS,
    query: search("locations"),
    nodeCost: 1,
    first: 250,
  });
  const products = await readAll<catalog.ProductNode>(client, {
    field: "products",
    args: "sortKey: UPDATED_AT",
    selection: catalog.PRODUCT_FIELDS,
    query: search("products"),
    nodeCost: 1,
    first: 250,
  });
  const variants = await readAll<catalog.VariantNode & { product: { id: string } }>(client, {
    field: "productVariants",
    selection: `${catalog.VARIANT_FIELDS} product { id }`,
    query: search("variants"),
    nodeCost: 4,
    first: 200,
  });
  const items = await readAll<ItemNode>(client, {
    field: "inventoryItems",
    selection: "id updatedAt unitCost { amount currencyCode }",
    query: search("inventoryItems"),
    nodeCost: 2,
    first: 250,
  });
  const levels = await readLevelChanges(client, since.levels);

  const next: IncrementalWatermark = {
    since: {
      locations: newest(since.locations, locations),
      products: newest(since.products, products),
      variants: newest(since.variants, variants),
      inventoryItems: newest(since.inventoryItems, items),
      levels: newest(
        since.levels,
        levels.map((l) => l.node),
      ),
    },
  };
  const itemCosts: PlatformItemCost[] = items.map((item) => ({
    inventoryItemId: fromGid(item.id, "InventoryItem"),
    unitCost: item.unitCost?.amount ?? null,
    currency: item.unitCost?.currencyCode ?? null,
  }));
  return {
    locations: catalog.toLocations(locations),
    products: catalog.toProducts(products),
    variants: await positioned(client, variants),
    itemCosts,
    levels: catalog.toLevels(levels),
    watermark: JSON.stringify(next),
    hasMore: false,
  };
}

/** Changed levels of every location (Shopify filters levels by updated_at under a location). */
async function readLevelChanges(client: ShopifyClient, since: string) {
  const all = await readAll<{ id: string }>(client, {
    field: "locations",
    args: "includeInactive: true",
    selection: "id",
    query: null,
    nodeCost: 1,
    first: 250,
  });
  const changed: catalog.LocatedLevelNode[] = [];
  for (const location of all) {
    const nodes = await readLevelsOf(client, location.id, searchAfter(since));
    const locationId = fromGid(location.id, "Location");
    for (const node of nodes) changed.push({ node, locationId });
  }
  return changed;
}

async function readLevelsOf(
  client: ShopifyClient,
  locationId: string,
  query: string,
): Promise<catalog.LevelNode[]> {
  const rows: catalog.LevelNode[] = [];
  let after: string | null = null;
  do {
    const answer: { data: { location: { inventoryLevels: Page<catalog.LevelNode> } | null } } =
      await client.graphql(
        `query LevelChanges($id: ID!, $query: String!, $after: String) {
  location(id: $id) { inventoryLevels(first: 200, after: $after, query: $query) { nodes { ${catalog.LEVEL_FIELDS} } pageInfo { hasNextPage endCursor } } }
}`,
        { id: locationId, query, after },
        3 + 200 * 3,
      );
    const page = answer.data.location?.inventoryLevels;
    if (!page) break; // the location went away between the two reads
    rows.push(...page.nodes);
    after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
  } while (after !== null);
  return rows;
}

/**
 * Positions the changed variants as the import does (by id among their product's variants), which
 * needs the ids of their siblings: three products a query.
 */
async function positioned(
  client: ShopifyClient,
  variants: ReadonlyArray<catalog.VariantNode & { product: { id: string } }>,
): Promise<PlatformVariant[]> {
  const productIds = [...new Set(variants.map((v) => v.product.id))];
  const siblings = new Map<string, number[]>();
  for (let start = 0; start < productIds.length; start += 3) {
    const ids = productIds.slice(start, start + 3);
    const answer = await client.graphql<{
      nodes: Array<{ id: string; variants: { nodes: Array<{ id: string }> } } | null>;
    }>(
      "query Siblings($ids: [ID!]!) { nodes(ids: $ids) { ... on Product { id variants(first: 250) { nodes { id } } } } }",
      { ids },
      ids.length * 253,
    );
    for (const product of answer.data.nodes) {
      if (product)
        siblings.set(
          product.id,
          product.variants.nodes.map((v) => fromGid(v.id, "ProductVariant")).sort((a, b) => a - b),
        );
    }
  }
  return variants
    .map((node) => {
      const productId = fromGid(node.product.id, "Product");
      const id = fromGid(node.id, "ProductVariant");
      const position = (siblings.get(toGid("Product", productId))?.indexOf(id) ?? -1) + 1;
      return catalog.toVariant(node, productId, Math.max(position, 1));
    })
    .sort((a, b) => a.id - b.id);
}
