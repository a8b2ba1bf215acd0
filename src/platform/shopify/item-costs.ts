import {
  type InventoryAdjustment,
  type InventoryAdjustResult,
  PlatformPermanentError,
} from "../connector.ts";
import { refuseOnUserErrors, type ShopifyClient } from "./client.ts";
import { toGid } from "./gids.ts";
import { missingRecords } from "./missing-records.ts";

/** inventoryItemUpdate fields in one mutation: 10 points each. */
const COSTS_PER_CALL = 20;

/**
 * Sets items' unit costs (a receipt's landed costs) with inventoryItemUpdate. Shopify keeps a cost in
 * the shop's currency, which is the store's: a cost in another currency is refused, not converted
 * (Stockroom pushes landed costs in the store's currency already). Setting a cost is idempotent by
 * itself; the last cost given for an item wins. An item Shopify no longer has is passed over. Answers
 * each set item's updatedAt as the mutation answered it, and when that answer came (service clock):
 * the mirror keeps the cost over a sync's older read of the item (InventoryAdjustResult.costVersions).
 */
export async function setItemCosts(
  client: ShopifyClient,
  shopCurrency: string,
  itemCosts: InventoryAdjustment["itemCosts"],
  /** Given: the items found gone are added to it. */
  goneItems?: Set<number>,
): Promise<NonNullable<InventoryAdjustResult["costVersions"]>> {
  const versions: NonNullable<InventoryAdjustResult["costVersions"]> = [];
  const costs = new Map<number, string>();
  for (const cost of itemCosts) {
    if (cost.currency !== null && cost.currency !== shopCurrency)
      throw new PlatformPermanentError(
        `the unit cost of inventory item ${cost.inventoryItemId} is in ${cost.currency}, the shop's currency is ${shopCurrency}`,
      );
    costs.set(cost.inventoryItemId, cost.unitCost);
  }
  const entries = [...costs];
  const refused: Array<{ itemId: number; payload: { userErrors: Array<{ message: string }> } }> = [];
  for (let start = 0; start < entries.length; start += COSTS_PER_CALL) {
    const chunk = entries.slice(start, start + COSTS_PER_CALL);
    const declarations = chunk.map((_, i) => `$id${i}: ID!, $cost${i}: Decimal!`).join(", ");
    const fields = chunk
      .map(
        (_, i) =>
          `cost${i}: inventoryItemUpdate(id: $id${i}, input: { cost: $cost${i} }) { inventoryItem { id updatedAt } userErrors { field message } }`,
      )
      .join("\n  ");
    const variables = Object.fromEntries(
      chunk.flatMap(([itemId, unitCost], i) => [
        [`id${i}`, toGid("InventoryItem", itemId)],
        [`cost${i}`, unitCost],
      ]),
    );
    const answer = await client.graphql<Record<string, ItemUpdatePayload | null>>(
      `mutation ItemCosts(${declarations}) {\n  ${fields}\n}`,
      variables,
      chunk.length * 10,
    );
    const answeredAt = client.now();
    chunk.forEach(([itemId], i) => {
      const payload = answer.data[`cost${i}`];
      if (payload && payload.userErrors.length > 0) refused.push({ itemId, payload });
      else if (payload?.inventoryItem)
        versions.push({
          inventoryItemId: itemId,
          updatedAt: new Date(payload.inventoryItem.updatedAt),
          readAt: answeredAt,
        });
    });
  }
  if (refused.length === 0) return versions;
  // An item deleted since its change went has no cost to set; any other refusal stands.
  const gone = await missingRecords(
    client,
    "InventoryItem",
    refused.map((r) => r.itemId),
  );
  for (const { itemId, payload } of refused)
    if (!gone.has(itemId)) refuseOnUserErrors(`inventoryItemUpdate of inventory item ${itemId}`, payload);
  for (const item of gone) goneItems?.add(item);
  return versions;
}

interface ItemUpdatePayload {
  inventoryItem: { id: string; updatedAt: string } | null;
  userErrors: Array<{ message: string }>;
}
