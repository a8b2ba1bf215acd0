import type { Dispatcher } from "undici";
import { type CatalogChanges, PlatformTransientError } from "../connector.ts";
import { awaitBulkOperation, startBulkQuery } from "./bulk-operation.ts";
import {
  LEVEL_FIELDS,
  type LevelNode,
  LOCATION_FIELDS,
  type LocationNode,
  PRODUCT_FIELDS,
  type ProductNode,
  toLevel,
  toLocation,
  toProduct,
  toVariant,
  VARIANT_FIELDS,
  type VariantNode,
} from "./catalog-nodes.ts";
import type { ShopifyClient } from "./client.ts";
import { fromGid } from "./gids.ts";
import { jsonlLines } from "./jsonl.ts";

/**
 * The initial import (docs/decisions.md, "Shopify connector"): one bulk query over locations with
 * their levels and products with their variants (two connections nested one deep each, within
 * Shopify's bulk rules), then the JSONL read whole, in any order (a child line may come before its
 * parent), and handed out in batches of whole products: about `limit` variants each, the locations in
 * the first, each batch with its items' levels. Every batch reads the result again from the URL
 * (streamed, never held as text), so a sync that dies resumes at its batch with nothing kept between.
 */
export const IMPORT_QUERY = `{
  locations(includeInactive: true) { edges { node { ${LOCATION_FIELDS}
    inventoryLevels { edges { node { ${LEVEL_FIELDS} } } } } } }
  products { edges { node { ${PRODUCT_FIELDS}
    variants { edges { node { ${VARIANT_FIELDS} } } } } } }
}`;

/** Where an import stands, inside the watermark. */
export interface ImportWatermark {
  import: { operation: string; offset: number };
}

/** After the import: changes after `since` (the bulk operation's start), per resource. */
export interface IncrementalWatermark {
  since: { products: string; variants: string; inventoryItems: string; locations: string; levels: string };
}

export interface ImportDeps {
  dispatcher: Dispatcher;
  timeoutMs: number;
  /** Between two polls of a running bulk operation. */
  pollWait: () => Promise<void>;
}

interface Lines {
  products: ProductNode[];
  variants: Array<VariantNode & { __parentId: string }>;
  locations: LocationNode[];
  levels: Array<LevelNode & { __parentId: string }>;
}

/** One batch of the import; `watermark` null starts it (a new bulk operation). */
export async function importCatalogBatch(
  client: ShopifyClient,
  deps: ImportDeps,
  watermark: ImportWatermark | null,
  limit: number,
): Promise<CatalogChanges> {
  const operationId = watermark?.import.operation ?? (await startBulkQuery(client, IMPORT_QUERY));
  const offset = watermark?.import.offset ?? 0;
  const operation = await awaitBulkOperation(client, operationId, deps.pollWait);
  const lines: Lines = { products: [], variants: [], locations: [], levels: [] };
  if (operation.url !== null) {
    for await (const line of jsonlLines(deps.dispatcher, operation.url, deps.timeoutMs))
      sortLine(line, lines);
  }

  const products = lines.products.map(toProduct).sort((a, b) => a.id - b.id);
  const variantsOf = new Map<number, VariantNode[]>();
  for (const variant of lines.variants) {
    const productId = fromGid(variant.__parentId, "Product");
    const list = variantsOf.get(productId) ?? [];
    list.push(variant);
    variantsOf.set(productId, list);
  }
  const known = new Set(products.map((p) => p.id));
  const orphan = [...variantsOf.keys()].find((id) => !known.has(id));
  if (orphan !== undefined)
    throw new PlatformTransientError(`the bulk result has variants of product ${orphan} but not the product`);

  let end = offset;
  let count = 0;
  while (
    end < products.length &&
    (count === 0 || count + (variantsOf.get(products[end].id)?.length ?? 0) <= limit)
  ) {
    count += variantsOf.get(products[end].id)?.length ?? 0;
    end++;
  }
  const batch = products.slice(offset, end);
  const variants = batch.flatMap((product) =>
    (variantsOf.get(product.id) ?? [])
      .map((node) => ({ node, id: fromGid(node.id, "ProductVariant") }))
      .sort((a, b) => a.id - b.id)
      .map(({ node }, i) => toVariant(node, product.id, i + 1)),
  );
  const items = new Set(variants.map((v) => v.inventoryItem.id));
  const levels = lines.levels
    .map((node) => toLevel(node, fromGid(node.__parentId, "Location")))
    .filter((level) => items.has(level.inventoryItemId))
    .sort((a, b) => a.inventoryItemId - b.inventoryItemId || a.locationId - b.locationId);
  const hasMore = end < products.length;
  const next: ImportWatermark | IncrementalWatermark = hasMore
    ? { import: { operation: operationId, offset: end } }
    : {
        since: {
          products: operation.createdAt,
          variants: operation.createdAt,
          inventoryItems: operation.createdAt,
          locations: operation.createdAt,
          levels: operation.createdAt,
        },
      };
  return {
    products: batch,
    variants,
    locations: offset === 0 ? lines.locations.map(toLocation).sort((a, b) => a.id - b.id) : [],
    itemCosts: [],
    levels,
    watermark: JSON.stringify(next),
    hasMore,
  };
}

/** A JSONL line to its list by its GID's type (a nested node names its parent in `__parentId`). */
function sortLine(line: Record<string, unknown>, lines: Lines): void {
  const id = typeof line.id === "string" ? line.id : "";
  const parent = typeof line.__parentId === "string" ? line.__parentId : "";
  if (id.startsWith("gid://shopify/ProductVariant/")) lines.variants.push(line as never);
  else if (id.startsWith("gid://shopify/Product/")) lines.products.push(line as never);
  else if (id.startsWith("gid://shopify/Location/")) lines.locations.push(line as never);
  else if (parent.startsWith("gid://shopify/Location/") && "quantities" in line)
    lines.levels.push(line as never);
}
