import { type PlatformInventoryLevel, PlatformPermanentError } from "../connector.ts";
import { type LevelNode, toLevel } from "./catalog-nodes.ts";
import type { ShopifyClient } from "./client.ts";
import { toGid } from "./gids.ts";
import { missingRecords } from "./missing-records.ts";

/**
 * Levels read in one query. Each costs 2 points (the level and its quantities) plus 1 per group it
 * shares: 100 levels at one location are 101 points, well under Shopify's 1,000 a query, and a
 * document has at most 250 changes.
 */
const LEVELS_PER_READ = 100;

/** What a level read back needs: the item and location are known from the question, not re-read. */
const READ_BACK_FIELDS =
  'updatedAt quantities(names: ["available", "on_hand", "committed", "incoming"]) { name quantity }';

interface Pair {
  inventoryItemId: number;
  locationId: number;
}

/** The pairs under one parent object: a location (its levels of several items) or an item (at several locations). */
interface Group {
  parent: "location" | "inventoryItem";
  parentId: number;
  pairs: Pair[];
}

/**
 * The levels of (item, location) pairs as Shopify has them now (an item Shopify no longer has is left
 * out): how a push learns the levels after it
 * (inventoryAdjustQuantities' quantityAfterChange is null in live answers). Only the touched levels are
 * read, under whichever parent makes fewer objects: a receipt's lines share a location, so its 50
 * levels are one `location` with 50 aliased `inventoryLevel(inventoryItemId:)` (101 points; each level
 * under its own `inventoryItem` with the item re-read was 200).
 */
export async function readLevels(
  client: ShopifyClient,
  pairs: ReadonlyArray<Pair>,
  found: {
    /** Given: the items found gone are added to it. */
    gone?: Set<number>;
    /**
     * Given: a missing level whose item Shopify still has (the level deactivated, its location
     * deleted) is added to it and left out, not refused.
     */
    absent?: Pair[];
  } = {},
): Promise<PlatformInventoryLevel[]> {
  const levels: PlatformInventoryLevel[] = [];
  const missing: Pair[] = [];
  for (let start = 0; start < pairs.length; start += LEVELS_PER_READ) {
    const chunk = pairs.slice(start, start + LEVELS_PER_READ);
    const groups = groupPairs(chunk);
    const { document, variables } = levelsDocument(groups);
    const cost = groups.length + 2 * chunk.length;
    const readAt = client.now();
    const answer = await client.graphql<Record<string, Record<string, LevelNode | null> | null>>(
      document,
      variables,
      cost,
    );
    groups.forEach((group, g) => {
      group.pairs.forEach((pair, i) => {
        const node = answer.data[`g${g}`]?.[`l${i}`];
        if (!node) {
          missing.push(pair);
          return;
        }
        levels.push(
          toLevel(
            { ...node, item: { id: toGid("InventoryItem", pair.inventoryItemId) } },
            pair.locationId,
            readAt,
          ),
        );
      });
    });
  }
  if (missing.length > 0) {
    // An item deleted since its change went (its level went with it) is not reported; any other
    // missing level is a refusal, unless the caller takes it as absent.
    const missingItems = await missingRecords(
      client,
      "InventoryItem",
      missing.map((p) => p.inventoryItemId),
    );
    const unexplained = missing.filter((p) => !missingItems.has(p.inventoryItemId));
    if (unexplained.length > 0 && !found.absent)
      throw new PlatformPermanentError(
        `Shopify has no level of inventory item ${unexplained[0].inventoryItemId} at location ${unexplained[0].locationId}`,
      );
    found.absent?.push(...unexplained);
    for (const item of missingItems) found.gone?.add(item);
  }
  return levels;
}

/** Groups by location or by item, whichever gives fewer groups (each group is one object to pay for). */
function groupPairs(pairs: ReadonlyArray<Pair>): Group[] {
  const by = (parent: Group["parent"], key: (p: Pair) => number): Group[] => {
    const groups = new Map<number, Group>();
    for (const pair of pairs) {
      const id = key(pair);
      let group = groups.get(id);
      if (!group) {
        group = { parent, parentId: id, pairs: [] };
        groups.set(id, group);
      }
      group.pairs.push(pair);
    }
    return [...groups.values()];
  };
  const byLocation = by("location", (p) => p.locationId);
  const byItem = by("inventoryItem", (p) => p.inventoryItemId);
  return byItem.length < byLocation.length ? byItem : byLocation;
}

function levelsDocument(groups: Group[]): { document: string; variables: Record<string, string> } {
  const declarations: string[] = [];
  const fields: string[] = [];
  const variables: Record<string, string> = {};
  groups.forEach((group, g) => {
    const parentVariable = `p${g}`;
    declarations.push(`$${parentVariable}: ID!`);
    variables[parentVariable] =
      group.parent === "location"
        ? toGid("Location", group.parentId)
        : toGid("InventoryItem", group.parentId);
    const levels = group.pairs.map((pair, i) => {
      const variable = `p${g}l${i}`;
      declarations.push(`$${variable}: ID!`);
      if (group.parent === "location") {
        variables[variable] = toGid("InventoryItem", pair.inventoryItemId);
        return `l${i}: inventoryLevel(inventoryItemId: $${variable}) { ...Level }`;
      }
      variables[variable] = toGid("Location", pair.locationId);
      return `l${i}: inventoryLevel(locationId: $${variable}) { ...Level }`;
    });
    fields.push(`g${g}: ${group.parent}(id: $${parentVariable}) { ${levels.join(" ")} }`);
  });
  const document = `query Levels(${declarations.join(", ")}) {\n  ${fields.join("\n  ")}\n}\nfragment Level on InventoryLevel { ${READ_BACK_FIELDS} }`;
  return { document, variables };
}
