import {
  type InventoryAdjustment,
  type InventoryAdjustResult,
  movedNothing,
  PlatformTransientError,
} from "../connector.ts";
import { type AdjustCall, callIdempotencyKey, planAdjustCalls } from "./adjust-plan.ts";
import { refuseOnUserErrors, type ShopifyClient, wasUnexecuted } from "./client.ts";
import type { AttemptGenerations } from "./generations.ts";
import { fromGid } from "./gids.ts";
import { setItemCosts } from "./item-costs.ts";
import { readLevels } from "./levels.ts";
import { missingRecords } from "./missing-records.ts";

const ADJUST = `mutation AdjustQuantities($input: InventoryAdjustQuantitiesInput!, $key: String!) {
  inventoryAdjustQuantities(input: $input) @idempotent(key: $key) {
    inventoryAdjustmentGroup { id }
    userErrors { field message code }
  }
}`;

/** New keys tried for one call in one attempt after Shopify burned the previous ones. */
const NEW_KEYS_PER_ATTEMPT = 2;

/**
 * IDEMPOTENCY_CONCURRENT_REQUEST means the same key's first request is being processed right now
 * (Shopify: "currently in progress, please try again"): it ends in moments, so the call is sent again
 * under its key after 0.5-1 s (jittered, so two waiting senders do not meet again), at most this many
 * times in one attempt; then the attempt is transient and takes the push's backoff.
 */
export const CONCURRENT_RETRIES = 5;
const concurrentPause = () => 500 + Math.floor(Math.random() * 500);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
 *
 * Items Shopify no longer has (deleted there, even between a crashed attempt and its retry) are left
 * out of what is still to send and answered as `skippedItems`: one deleted item must not stop the
 * document's other changes, nor fail it forever. Those, and items found gone while costs were set or
 * levels read back, are answered as `goneItems` (the mirror learns of the deletion from the push,
 * whether or not its webhook ever arrives). Changes taking incoming or stock off a location Shopify
 * deleted are left out the same way (Shopify refuses them, and there is nothing left to take off
 * there), and the rest goes: a cancel, a close or a receipt elsewhere of an order at that location
 * is acknowledged, not failed for good. They are not answered: nothing of the record failed.
 */
export async function adjustShopifyInventory(
  client: ShopifyClient,
  options: { shopCurrency: string; generations: AttemptGenerations },
  adjustment: InventoryAdjustment,
): Promise<InventoryAdjustResult> {
  const skipped = new Set<number>();
  // Until Shopify answers one of the document's calls, a request it did not execute means this
  // attempt moved nothing (push.ts takes the marks off; whether an earlier attempt did is its part).
  let answered = false;
  try {
    for (const call of planAdjustCalls(adjustment))
      for (const item of await sendCall(client, options.generations, adjustment.idempotencyKey, call, () => {
        answered = true;
      }))
        skipped.add(item);
  } catch (error) {
    if (!answered && wasUnexecuted(error)) movedNothing(error as Error);
    throw error;
  }
  const costs = adjustment.itemCosts.filter((c) => !skipped.has(c.inventoryItemId));
  const gone = new Set(skipped);
  const costVersions = costs.length > 0 ? await setItemCosts(client, options.shopCurrency, costs, gone) : [];
  const pairs = new Map<string, { inventoryItemId: number; locationId: number }>();
  for (const { inventoryItemId, locationId } of adjustment.changes)
    if (!skipped.has(inventoryItemId))
      pairs.set(`${inventoryItemId}:${locationId}`, { inventoryItemId, locationId });
  // A level gone since its call applied (the item no longer stocked there, its location deleted) is
  // not reported: its change went, and the mirror learns of the drop from the webhook or
  // reconciliation. Refusing it failed a push whose stock had moved.
  const levels = await readLevels(client, [...pairs.values()], { gone, absent: [] });
  const result: InventoryAdjustResult = { replayed: false, levels };
  if (costVersions.length > 0) result.costVersions = costVersions;
  if (skipped.size > 0) result.skippedItems = [...skipped].sort((a, b) => a - b);
  if (gone.size > 0) result.goneItems = [...gone].sort((a, b) => a - b);
  return result;
}

/**
 * The call's input without the changes of `items`, nor the take-off changes (a negative delta) at
 * `locations`: incoming or stock taken off a location Shopify deleted has nothing left to take off
 * there. A change adding there stays, and Shopify's refusal of it with it.
 */
function without(
  input: AdjustCall["input"],
  items: readonly number[],
  locations: readonly number[],
): AdjustCall["input"] {
  if (items.length === 0 && locations.length === 0) return input;
  const leftItems = new Set(items);
  const leftLocations = new Set(locations);
  return {
    ...input,
    changes: input.changes.filter(
      (c) =>
        !leftItems.has(fromGid(c.inventoryItemId, "InventoryItem")) &&
        !(c.delta < 0 && leftLocations.has(fromGid(c.locationId, "Location"))),
    ),
  };
}

/**
 * After a refusal naming only unknown items or locations: which of the input's items, and of the
 * locations of its take-off changes, Shopify confirms gone (`nodes` answers null).
 */
async function goneOf(
  client: ShopifyClient,
  input: AdjustCall["input"],
  codes: ReadonlySet<string | null>,
): Promise<{ items: Set<number>; locations: Set<number> }> {
  const items = codes.has("INVALID_INVENTORY_ITEM")
    ? await missingRecords(
        client,
        "InventoryItem",
        input.changes.map((c) => fromGid(c.inventoryItemId, "InventoryItem")),
      )
    : new Set<number>();
  const takenOff = input.changes.filter((c) => c.delta < 0).map((c) => fromGid(c.locationId, "Location"));
  const locations =
    codes.has("INVALID_LOCATION") && takenOff.length > 0
      ? await missingRecords(client, "Location", takenOff)
      : new Set<number>();
  return { items, locations };
}

/**
 * Sends one call under its stored generation, with the input that generation fixes (the planned
 * changes less the items it leaves out, and less the take-off changes at the locations it leaves);
 * answers the items left out. A refusal naming only unknown inventory items or locations applied
 * nothing (Shopify takes a call whole or not at all, and a key it applied before answers that result,
 * not a refusal), so the items Shopify confirms gone, and the take-off changes at the locations it
 * confirms gone, are left out under the next generation, stored before it is sent.
 */
async function sendCall(
  client: ShopifyClient,
  generations: AttemptGenerations,
  documentKey: string,
  call: AdjustCall,
  onAnswer: () => void,
): Promise<readonly number[]> {
  let { generation, skippedItems, skippedLocations } = await generations.attempt(documentKey, call.call);
  for (let newKeys = 0, concurrent = 0; ; ) {
    const input = without(call.input, skippedItems, skippedLocations);
    if (input.changes.length === 0) return skippedItems;
    const key = callIdempotencyKey(documentKey, call.call, generation);
    const answer = await client.graphql<AdjustPayload>(ADJUST, { input, key }, 10);
    onAnswer();
    const payload = answer.data.inventoryAdjustQuantities;
    const errors = payload?.userErrors ?? [];
    if (errors.length === 0) return skippedItems;
    // Another request under this key (the same document sent at once by another push) is still being
    // processed: Shopify says to try again, and the retry under the same key gets that request's result,
    // soon (CONCURRENT_RETRIES), not after the push's 10 s backoff. Not a refusal, and not "moved
    // nothing" (that request may be moving the stock).
    if (errors.some((e) => e.code === "IDEMPOTENCY_CONCURRENT_REQUEST")) {
      if (concurrent < CONCURRENT_RETRIES) {
        concurrent++;
        await sleep(concurrentPause());
        continue;
      }
      throw new PlatformTransientError(
        `Shopify is still processing another request of ${call.input.name} for ${documentKey} under its key; the next try sends it again under that key`,
      );
    }
    if (errors.some((e) => e.code === "IDEMPOTENCY_PREVIOUS_ATTEMPT_FAILED")) {
      if (newKeys >= NEW_KEYS_PER_ATTEMPT)
        throw new PlatformTransientError(
          `Shopify failed ${newKeys + 1} attempts of ${call.input.name} for ${documentKey}; the next try uses a new key`,
        );
      newKeys++;
      // Stored before the call goes out under it: a crash from here on retries with this key.
      generation = await generations.advance(documentKey, call.call);
      continue;
    }
    if (errors.every((e) => e.code === "INVALID_INVENTORY_ITEM" || e.code === "INVALID_LOCATION")) {
      const gone = await goneOf(client, input, new Set(errors.map((e) => e.code)));
      const items = [...new Set([...skippedItems, ...gone.items])].sort((a, b) => a - b);
      const locations = [...new Set([...skippedLocations, ...gone.locations])].sort((a, b) => a - b);
      // Only when the next input leaves something more out: else the refusal stands (an item or a
      // location Shopify still has, or a change adding stock at a deleted location).
      if (without(input, items, locations).changes.length < input.changes.length) {
        skippedItems = items;
        skippedLocations = locations;
        generation = await generations.advance(documentKey, call.call, skippedItems, skippedLocations);
        continue;
      }
    }
    refuseOnUserErrors(`inventoryAdjustQuantities (${call.input.name})`, payload);
  }
}
