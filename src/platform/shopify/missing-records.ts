import type { ShopifyClient } from "./client.ts";
import { toGid } from "./gids.ts";

// Shopify's limit on an input array (the ids of one `nodes` read).
const IDS_PER_READ = 250;

/**
 * Which of these records Shopify no longer has: read by id with `nodes`, which answers null for a
 * deleted one (1 point a record, plus the list).
 */
export async function missingRecords(
  client: ShopifyClient,
  type: "InventoryItem" | "Location" | "Product" | "ProductVariant",
  ids: readonly number[],
): Promise<Set<number>> {
  const gone = new Set<number>();
  const unique = [...new Set(ids)];
  for (let start = 0; start < unique.length; start += IDS_PER_READ) {
    const part = unique.slice(start, start + IDS_PER_READ);
    const answer = await client.graphql<{ nodes: Array<{ id: string } | null> }>(
      "query Exists($ids: [ID!]!) { nodes(ids: $ids) { id } }",
      { ids: part.map((id) => toGid(type, id)) },
      2 + part.length,
    );
    answer.data.nodes.forEach((node, i) => {
      if (node === null) gone.add(part[i]);
    });
  }
  return gone;
}
