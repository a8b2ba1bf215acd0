import { type PlatformInventoryLevel, PlatformPermanentError } from "../connector.ts";
import { LEVEL_FIELDS, type LevelNode, toLevel } from "./catalog-nodes.ts";
import type { ShopifyClient } from "./client.ts";
import { toGid } from "./gids.ts";

/** Levels read in one query: about 4 points each, well under Shopify's 1,000 a query. */
const LEVELS_PER_READ = 50;

/**
 * The levels of (item, location) pairs as Shopify has them now: how a push learns the levels after it
 * (inventoryAdjustQuantities' quantityAfterChange is null in live answers). Mapped as the import maps
 * levels (catalog-nodes.ts).
 */
export async function readLevels(
  client: ShopifyClient,
  pairs: ReadonlyArray<{ inventoryItemId: number; locationId: number }>,
): Promise<PlatformInventoryLevel[]> {
  const levels: PlatformInventoryLevel[] = [];
  for (let start = 0; start < pairs.length; start += LEVELS_PER_READ) {
    const chunk = pairs.slice(start, start + LEVELS_PER_READ);
    const declarations = chunk.map((_, i) => `$item${i}: ID!, $location${i}: ID!`).join(", ");
    const fields = chunk
      .map(
        (_, i) =>
          `level${i}: inventoryItem(id: $item${i}) { inventoryLevel(locationId: $location${i}) { ...Level } }`,
      )
      .join("\n  ");
    const document = `query Levels(${declarations}) {\n  ${fields}\n}\nfragment Level on InventoryLevel { ${LEVEL_FIELDS} }`;
    const variables = Object.fromEntries(
      chunk.flatMap((pair, i) => [
        [`item${i}`, toGid("InventoryItem", pair.inventoryItemId)],
        [`location${i}`, toGid("Location", pair.locationId)],
      ]),
    );
    const answer = await client.graphql<Record<string, { inventoryLevel: LevelNode | null } | null>>(
      document,
      variables,
      chunk.length * 4,
    );
    chunk.forEach((pair, i) => {
      const node = answer.data[`level${i}`]?.inventoryLevel;
      if (!node)
        throw new PlatformPermanentError(
          `Shopify has no level of inventory item ${pair.inventoryItemId} at location ${pair.locationId}`,
        );
      levels.push(toLevel(node, pair.locationId));
    });
  }
  return levels;
}
