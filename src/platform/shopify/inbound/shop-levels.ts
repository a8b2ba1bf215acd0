import type { PlatformInventoryLevel } from "../../connector.ts";
import { LEVEL_FIELDS, type LevelNode, toLevel } from "../catalog-nodes.ts";
import type { ShopifyClient } from "../client.ts";
import { fromGid } from "../gids.ts";

interface Page<T> {
  nodes: T[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

// As the incremental read pages levels: 3 points a level keeps a page well under 1,000.
const LEVELS_PER_PAGE = 200;

/**
 * Every inventory level of the shop as Shopify has it now, location by location (inactive ones too),
 * for reconciliation. Shopify stops a paginated read at 25,000 objects: a location holding more
 * levels than that is read only that far (docs/decisions.md, "Shopify webhooks and reconciliation").
 */
export async function readShopLevels(client: ShopifyClient): Promise<PlatformInventoryLevel[]> {
  const levels: PlatformInventoryLevel[] = [];
  for (const locationId of await locationIds(client)) {
    let after: string | null = null;
    do {
      const answer: { data: { location: { inventoryLevels: Page<LevelNode> } | null } } =
        await client.graphql(
          `query ReconcileLevels($id: ID!, $first: Int!, $after: String) {
  location(id: $id) { inventoryLevels(first: $first, after: $after) { nodes { ${LEVEL_FIELDS} } pageInfo { hasNextPage endCursor } } }
}`,
          { id: locationId, first: LEVELS_PER_PAGE, after },
          3 + LEVELS_PER_PAGE * 3,
        );
      const page = answer.data.location?.inventoryLevels;
      if (!page) break; // the location went away meanwhile
      const id = fromGid(locationId, "Location");
      for (const node of page.nodes) levels.push(toLevel(node, id));
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after !== null);
  }
  return levels;
}

async function locationIds(client: ShopifyClient): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  do {
    const answer: { data: { locations: Page<{ id: string }> } } = await client.graphql(
      `query ReconcileLocations($after: String) {
  locations(first: 250, after: $after, includeInactive: true) { nodes { id } pageInfo { hasNextPage endCursor } }
}`,
      { after },
      2 + 250,
    );
    ids.push(...answer.data.locations.nodes.map((n) => n.id));
    after = answer.data.locations.pageInfo.hasNextPage ? answer.data.locations.pageInfo.endCursor : null;
  } while (after !== null);
  return ids;
}
