import type { CatalogTables } from "./tables/catalog.ts";
import type { FoundationTables } from "./tables/foundation.ts";
import type { PurchaseOrdersTables } from "./tables/purchase_orders.ts";
import type { PushGenerationsTables } from "./tables/push_generations.ts";
import type { ReceiptsPaymentsTables } from "./tables/receipts_payments.ts";
import type { ShopifyTables } from "./tables/shopify.ts";
import type { ShopifyInboundTables } from "./tables/shopify_inbound.ts";
import type { StaffTables } from "./tables/staff.ts";
import type { StockAdjustmentsTables } from "./tables/stock_adjustments.ts";
import type { SuppliersTables } from "./tables/suppliers.ts";
import type { WebhooksTables } from "./tables/webhooks.ts";

export type { DateOnly, Json, Numeric, Timestamp } from "./tables/foundation.ts";

/** Every table, merged from the module that owns it. */
export type Database = FoundationTables &
  CatalogTables &
  SuppliersTables &
  PurchaseOrdersTables &
  ReceiptsPaymentsTables &
  StockAdjustmentsTables &
  PushGenerationsTables &
  WebhooksTables &
  ShopifyTables &
  ShopifyInboundTables &
  StaffTables;
