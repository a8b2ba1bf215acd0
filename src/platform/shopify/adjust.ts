import {
  type InventoryAdjustment,
  type InventoryAdjustResult,
  PlatformTransientError,
} from "../connector.ts";
import { type AdjustCall, callIdempotencyKey, planAdjustCalls } from "./adjust-plan.ts";
import { refuseOnUserErrors, type ShopifyClient } from "./client.ts";
import type { AttemptGenerations } from "./generations.ts";
import { setItemCosts } from "./item-costs.ts";
import { readLevels } from "./levels.ts";

const ADJUST = `mutation AdjustQuantities($input: InventoryAdjustQuantitiesInput!, $key: String!) {
  inventoryAdjustQuantities(input: $input) @idempotent(key: $key) {
    inventoryAdjustmentGroup { id }
    userErrors { field message code }
  }
}`;

/** New keys tried for one call in one attempt after Shopify burned the previous ones. */
const NEW_KEYS_PER_ATTEMPT = 2;

interface AdjustPayload {
  inventoryAdjustQuantities: {
    inventoryAdjustmentGroup: { id: string } | null;
    userErrors: Array<{ field: string[] | null; message: string; code: string | null }>;
  } | null;
}

/**
 * One Stockroom ledger document on Shopify (docs/decisions.md, "Shopify connector"): its calls in
 * order, each under its own key, then the items' costs, then the touched levels read back. A retry
 * of a document half sent before a crash repeats the sent calls under their keys (Shopify answers
 * them without moving stock again) and completes the rest. `replayed` stays false: Shopify does not
 * say whether a key's answer was a replay.
 */
export async function adjustShopifyInventory(
  client: ShopifyClient,
  options: { shopCurrency: string; generations: AttemptGenerations },
  adjustment: InventoryAdjustment,
): Promise<InventoryAdjustResult> {
  for (const call of planAdjustCalls(adjustment))
    await sendCall(client, options.generations, adjustment.idempotencyKey, call);
  if (adjustment.itemCosts.length > 0) await setItemCosts(client, options.shopCurrency, adjustment.itemCosts);
  const pairs = new Map<string, { inventoryItemId: number; locationId: number }>();
  for (const { inventoryItemId, locationId } of adjustment.changes)
    pairs.set(`${inventoryItemId}:${locationId}`, { inventoryItemId, locationId });
  return { replayed: false, levels: await readLevels(client, [...pairs.values()]) };
}

async function sendCall(
  client: ShopifyClient,
  generations: AttemptGenerations,
  documentKey: string,
  call: AdjustCall,
): Promise<void> {
  let generation = await generations.current(documentKey, call.call);
  for (let newKeys = 0; ; newKeys++) {
    const key = callIdempotencyKey(documentKey, call.call, generation);
    const answer = await client.graphql<AdjustPayload>(ADJUST, { input: call.input, key }, 10);
    const payload = answer.data.inventoryAdjustQuantities;
    const burned = payload?.userErrors.some((e) => e.code === "IDEMPOTENCY_PREVIOUS_ATTEMPT_FAILED");
    if (!burned) {
      refuseOnUserErrors(`inventoryAdjustQuantities (${call.input.name})`, payload);
      return;
    }
    if (newKeys >= NEW_KEYS_PER_ATTEMPT)
      throw new PlatformTransientError(
        `Shopify failed ${newKeys + 1} attempts of ${call.input.name} for ${documentKey}; the next try uses a new key`,
      );
    // Stored before the call goes out under it: a crash from here on retries with this key.
    generation = await generations.advance(documentKey, call.call);
  }
}
