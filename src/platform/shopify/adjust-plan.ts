import type { InventoryAdjustment } from "../connector.ts";
import { toGid } from "./gids.ts";
import { shopifyReason } from "./reasons.ts";
import { documentOf, ledgerDocumentUri, referenceDocumentUri } from "./references.ts";

/** Shopify's limit of changes in one inventoryAdjustQuantities call. */
export const MAX_CHANGES_PER_CALL = 250;

export type ShopifyQuantityName = "available" | "quality_control" | "incoming";

/** One inventoryAdjustQuantities call of a document, its key without the attempt generation. */
export interface AdjustCall {
  /** `<name>` or `<name>.<part>`: the call's place in its document, stable across retries. */
  call: string;
  input: {
    name: ShopifyQuantityName;
    reason: string;
    referenceDocumentUri: string;
    changes: Array<{
      inventoryItemId: string;
      locationId: string;
      delta: number;
      changeFromQuantity: null;
      ledgerDocumentUri?: string;
    }>;
  };
}

// Stockroom's `on_hand` alone (units that left or joined on_hand without being for sale) is
// `quality_control`: Shopify refuses on_hand as an adjust name.
const SHOPIFY_NAME = { available: "available", on_hand: "quality_control", incoming: "incoming" } as const;
const ORDER: ShopifyQuantityName[] = ["available", "quality_control", "incoming"];

/**
 * A document as its Shopify calls: one per quantity name (in a fixed order), split in parts of at most
 * MAX_CHANGES_PER_CALL changes. Changes of one item and location under one name are summed, and
 * nothing-changes dropped. The same document always gives the same calls, so a retry's inputs match
 * what a key was first used with.
 */
export function planAdjustCalls(adjustment: InventoryAdjustment): AdjustCall[] {
  const document = documentOf(adjustment.referenceDocumentUri);
  const byName = new Map<
    ShopifyQuantityName,
    Map<string, { item: number; location: number; delta: number }>
  >();
  for (const change of adjustment.changes) {
    const name = SHOPIFY_NAME[change.name];
    const sums = byName.get(name) ?? new Map();
    byName.set(name, sums);
    const key = `${change.inventoryItemId}:${change.locationId}`;
    const sum = sums.get(key) ?? { item: change.inventoryItemId, location: change.locationId, delta: 0 };
    sum.delta += change.delta;
    sums.set(key, sum);
  }
  const calls: AdjustCall[] = [];
  for (const name of ORDER) {
    const changes = [...(byName.get(name)?.values() ?? [])].filter((c) => c.delta !== 0);
    if (changes.length === 0) continue;
    const reason = shopifyReason(
      adjustment.reason,
      changes.map((c) => c.delta),
    );
    const ledger = name === "available" ? undefined : ledgerDocumentUri(document, name);
    const parts = Math.ceil(changes.length / MAX_CHANGES_PER_CALL);
    for (let part = 0; part < parts; part++) {
      calls.push({
        call: parts === 1 ? name : `${name}.${part + 1}`,
        input: {
          name,
          reason,
          referenceDocumentUri: referenceDocumentUri(document),
          changes: changes.slice(part * MAX_CHANGES_PER_CALL, (part + 1) * MAX_CHANGES_PER_CALL).map((c) => ({
            inventoryItemId: toGid("InventoryItem", c.item),
            locationId: toGid("Location", c.location),
            delta: c.delta,
            changeFromQuantity: null,
            ...(ledger === undefined ? {} : { ledgerDocumentUri: ledger }),
          })),
        },
      });
    }
  }
  return calls;
}

/** The idempotency key of one call: the document's key, the call and its attempt generation. */
export function callIdempotencyKey(documentKey: string, call: string, generation: number): string {
  return `${documentKey}:${call}:${generation}`;
}
