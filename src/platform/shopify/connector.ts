import type {
  CatalogChanges,
  InventoryAdjustment,
  InventoryAdjustResult,
  PlatformConnector,
} from "../connector.ts";
import { adjustShopifyInventory } from "./adjust.ts";
import {
  type ImportDeps,
  type ImportWatermark,
  type IncrementalWatermark,
  importCatalogBatch,
} from "./catalog-import.ts";
import { PAGING_LIMIT, readCatalogChanges } from "./catalog-incremental.ts";
import type { ShopifyClient } from "./client.ts";
import type { AttemptGenerations } from "./generations.ts";

export interface ShopifyConnectorOptions extends ImportDeps {
  client: ShopifyClient;
  /** The shop's currency, which is the store's: item costs are pushed in it. */
  shopCurrency: string;
  generations: AttemptGenerations;
  /** Shopify's paging cutoff (PAGING_LIMIT unless a test's stand-in shop is given a smaller one). */
  pagingLimit?: number;
}

/**
 * One Shopify shop behind Stockroom's connector interface: the change feed is the bulk import and
 * then incremental reads (the watermark says which), a push is adjustShopifyInventory. Not in the
 * registry yet: nothing attaches a Shopify store (docs/decisions.md, "Shopify connector").
 */
export class ShopifyConnector implements PlatformConnector {
  readonly platform = "shopify";

  constructor(private readonly options: ShopifyConnectorOptions) {}

  async listChanges(watermark: string | null, limit: number): Promise<CatalogChanges> {
    const parsed =
      watermark === null ? null : (JSON.parse(watermark) as ImportWatermark | IncrementalWatermark);
    if (parsed !== null && "since" in parsed)
      return readCatalogChanges(
        this.options.client,
        { ...this.options, pagingLimit: this.options.pagingLimit ?? PAGING_LIMIT },
        parsed,
      );
    return importCatalogBatch(this.options.client, this.options, parsed, limit);
  }

  adjustInventory(adjustment: InventoryAdjustment): Promise<InventoryAdjustResult> {
    return adjustShopifyInventory(this.options.client, this.options, adjustment);
  }
}
