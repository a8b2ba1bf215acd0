import { type PlatformInventoryLevel, PlatformPermanentError } from "../connector.ts";
import type { ShopifyClient } from "./client.ts";
import { fromGid, toGid } from "./gids.ts";

/** Levels read in one query: about 4 points each, well under Shopify's 1,000 a query. */
const LEVELS_PER_READ = 50;
const NAMES = ["available", "on_hand", "committed", "incoming"] as const;

interface LevelNode {
  updatedAt: string;
  location: { id: string };
  quantities: Array<{ name: string; quantity: number }>;
}

/**
 * The levels of (item, location) pairs as Shopify has them now: how a push learns the levels after it
 * (inventoryAdjustQuantities' quantityAfterChange is null in live answers). The version is the level's
 * updatedAt in milliseconds.
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
    const document = `query Levels(${declarations}) {\n  ${fields}\n}\nfragment Level on InventoryLevel { updatedAt location { id } quantities(names: ${JSON.stringify(NAMES)}) { name quantity } }`;
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
      const quantity = (name: string) => node.quantities.find((q) => q.name === name)?.quantity ?? 0;
      const updatedAt = new Date(node.updatedAt);
      levels.push({
        inventoryItemId: pair.inventoryItemId,
        locationId: fromGid(node.location.id, "Location"),
        available: quantity("available"),
        onHand: quantity("on_hand"),
        committed: quantity("committed"),
        incoming: quantity("incoming"),
        version: updatedAt.getTime(),
        updatedAt,
      });
    });
  }
  return levels;
}
