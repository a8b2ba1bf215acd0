import { PlatformPermanentError } from "../connector.ts";

/**
 * Shopify's global ids and the contract's integer platform ids (docs/decisions.md, "Shopify
 * connector"): the GID's numeric tail is the platform id, `gid://shopify/ProductVariant/123` is 123.
 * Shopify's ids stay below 2^53, so a JavaScript number holds them exactly.
 */
export type ShopifyType = "Product" | "ProductVariant" | "InventoryItem" | "Location";

export function toGid(type: ShopifyType, id: number): string {
  return `gid://shopify/${type}/${id}`;
}

/** The integer id of a GID of `type`; anything else is a refusal, never a guess. */
export function fromGid(value: string, type: ShopifyType): number {
  const match = /^gid:\/\/shopify\/([A-Za-z]+)\/(\d+)(?:\?.*)?$/.exec(value);
  const id = match ? Number(match[2]) : Number.NaN;
  if (!match || match[1] !== type || !Number.isSafeInteger(id) || id <= 0)
    throw new PlatformPermanentError(`Shopify answered ${JSON.stringify(value)} where a ${type} id belongs`);
  return id;
}
