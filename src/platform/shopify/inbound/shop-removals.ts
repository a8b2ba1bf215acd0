import type { CatalogRemovals } from "../../../domain/catalog/index.ts";
import type { ShopifyClient } from "../client.ts";
import { missingRecords } from "../missing-records.ts";

/**
 * Which of the mirror's live products and variants Shopify no longer has, for reconciliation: a
 * deletion whose products/delete (or products/update) delivery was lost is found here. Read by id
 * with `nodes`, which answers null for a deleted record and is not bound by the 25,000-object limit
 * of paginated reads.
 */
export async function readRemovals(
  client: ShopifyClient,
  live: { productIds: readonly number[]; variantIds: readonly number[] },
): Promise<CatalogRemovals> {
  return {
    productIds: [...(await missingRecords(client, "Product", live.productIds))],
    variantIds: [...(await missingRecords(client, "ProductVariant", live.variantIds))],
  };
}
