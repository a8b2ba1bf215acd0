import type { Dispatcher } from "undici";
import { type CatalogChanges, PlatformTransientError } from "../connector.ts";
import {
  awaitBulkOperation,
  type BulkOperationKeeper,
  type BulkOperationState,
  incomplete,
  KEEPS_NOTHING,
  withKeptBulkQuery,
} from "./bulk-operation.ts";
import {
  LEVEL_FIELDS,
  type LevelNode,
  LOCATION_FIELDS,
  type LocationNode,
  PRODUCT_FIELDS,
  type ProductNode,
  toLevels,
  toLocations,
  toProducts,
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
 * parent), and handed out in batches of whole products by id: about `limit` variants each, the
 * locations in the first, each batch with its items' levels. Every batch reads the result again from
 * the URL (streamed, never held as text), so a sync that dies resumes at its batch with nothing kept
 * between; when the watermark's operation is gone (failed, expired), a new one is run and the import
 * goes on after the last product handed out.
 */
export const IMPORT_QUERY = `{
  locations(includeInactive: true) { edges { node { ${LOCATION_FIELDS}
    inventoryLevels { edges { node { ${LEVEL_FIELDS} } } } } } }
  products { edges { node { ${PRODUCT_FIELDS}
    variants { edges { node { ${VARIANT_FIELDS} } } } } } }
}`;

/** Where an import stands, inside the watermark. */
export interface ImportWatermark {
  /** `after`: the id of the last product handed out. */
  import: { operation: string; after: number };
}

/** After the import: changes after `since` (the bulk operation's start), per resource. */
export interface IncrementalWatermark {
  since: { products: string; variants: string; inventoryItems: string; locations: string; levels: string };
}

export interface ImportDeps {
  dispatcher: Dispatcher;
  timeoutMs: number;
  /** Between two polls of a running bulk operation (`polls`: how many were made). */
  pollWait: (polls: number) => Promise<void>;
  /**
   * Where the sync keeps the bulk operation it started and has not seen end (the shop's row), so one
   * a killed sync left running is cancelled by the next bulk read; none (a test's connector) keeps nothing.
   */
  bulkOperations?: BulkOperationKeeper;
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
  const after = watermark?.import.after ?? 0;
  const operation = await completedOperation(client, deps, watermark?.import.operation ?? null);
  const operationId = operation.id;
  const lines: Lines = { products: [], variants: [], locations: [], levels: [] };
  if (operation.url !== null) {
    for await (const line of jsonlLines(deps.dispatcher, operation.url, deps.timeoutMs))
      sortLine(line, lines);
  }

  const products = toProducts(lines.products);
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

  const remaining = products.filter((p) => p.id > after);
  const sizeOf = (productId: number) => variantsOf.get(productId)?.length ?? 0;
  let end = 0;
  let count = 0;
  while (end < remaining.length && (count === 0 || count + sizeOf(remaining[end].id) <= limit)) {
    count += sizeOf(remaining[end].id);
    end++;
  }
  const batch = remaining.slice(0, end);
  const variants = batch.flatMap((product) =>
    (variantsOf.get(product.id) ?? [])
      .map((node) => ({ node, id: fromGid(node.id, "ProductVariant") }))
      .sort((a, b) => a.id - b.id)
      .map(({ node }, i) => toVariant(node, product.id, i + 1)),
  );
  const items = new Set(variants.map((v) => v.inventoryItem.id));
  const levels = toLevels(
    lines.levels.map((node) => ({ node, locationId: fromGid(node.__parentId, "Location") })),
  ).filter((level) => items.has(level.inventoryItemId));
  const hasMore = end < remaining.length;
  const next: ImportWatermark | IncrementalWatermark = hasMore
    ? { import: { operation: operationId, after: batch[batch.length - 1].id } }
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
    locations: after === 0 ? toLocations(lines.locations) : [],
    itemCosts: [],
    levels,
    watermark: JSON.stringify(next),
    hasMore,
  };
}

/** The watermark's operation when it completed, else a new one run to the end. */
async function completedOperation(
  client: ShopifyClient,
  deps: ImportDeps,
  known: string | null,
): Promise<BulkOperationState> {
  if (known !== null) {
    const operation = await awaitBulkOperation(client, known, deps.pollWait);
    if (operation.status === "COMPLETED") return operation;
  }
  // Kept until it completed (then the watermark names it): a sync killed before cancels nothing.
  return withKeptBulkQuery(client, deps.bulkOperations ?? KEEPS_NOTHING, IMPORT_QUERY, async (id) => {
    const operation = await awaitBulkOperation(client, id, deps.pollWait);
    if (operation.status !== "COMPLETED") throw incomplete(operation);
    return operation;
  });
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
