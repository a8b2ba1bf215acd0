import { Type } from "@sinclair/typebox";

/** Most SKUs one request looks up: a page's worth, so every match of a full list fits a page or two. */
export const MAX_SKUS = 250;

const Sku = Type.String({ minLength: 1, maxLength: 255 });

/**
 * `sku=ABC-1` (the contract's exact filter), or the parameter repeated for several SKUs
 * (`sku=ABC-1&sku=ABC-2`, up to 250): a SKU may hold a comma, so a list is not comma-separated.
 */
export const SkuList = Type.Union([Sku, Type.Array(Sku, { minItems: 1, maxItems: MAX_SKUS })], {
  description: `One SKU (exact), or the parameter repeated for up to ${MAX_SKUS} SKUs: variants having any of them.`,
});
