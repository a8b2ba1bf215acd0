import type { CatalogRemovals } from "../../../domain/catalog/index.ts";
import type { ShopifyClient } from "../client.ts";
import { toGid } from "../gids.ts";

// Shopify's limit on an input array (ids of one `nodes` read).
const IDS_PER_READ = 250;

/**
 * Which of the mirror's live products and variants Shopify no longer has, for reconciliation: a
 * deletion whose products/delete (or products/update) delivery was lost is found here. Read by id
 * with `nodes`, which answers null for a deleted record and is not bound by the 25,000-object limit
 * of paginated reads.
 */
export async function readRemovals(
  client: ShopifyClient,
  live: { productIds: readonly number[]; variantIds: readonly number[] },
): Promise<CatalogRemovals> {
  return {
    productIds: await missing(client, "Product", live.productIds),
    variantIds: await missing(client, "ProductVariant", live.variantIds),
  };
}

async function missing(
  client: ShopifyClient,
  type: "Product" | "ProductVariant",
  ids: readonly number[],
): Promise<number[]> {
  const gone: number[] = [];
  for (let start = 0; start < ids.length; start += IDS_PER_READ) {
    const part = ids.slice(start, start + IDS_PER_READ);
    const answer = await client.graphql<{ nodes: Array<{ id: string } | null> }>(
      "query Exists($ids: [ID!]!) { nodes(ids: $ids) { id } }",
      { ids: part.map((id) => toGid(type, id)) },
      2 + part.length,
    );
    answer.data.nodes.forEach((node, i) => {
      if (node === null) gone.push(part[i]);
    });
  }
  return gone;
}
