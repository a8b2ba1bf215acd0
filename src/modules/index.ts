import { catalogModule } from "./catalog.ts";
import { consoleModule } from "./console.ts";
import { documentsModule } from "./documents.ts";
import { foundationModule } from "./foundation.ts";
import type { Module } from "./module.ts";
import { purchaseOrdersModule } from "./purchase-orders.ts";
import { receiptsModule } from "./receipts.ts";
import { shopifyInboundModule } from "./shopify-inbound.ts";
import { shopifyOAuthModule } from "./shopify-oauth.ts";
import { staffModule } from "./staff.ts";
import { stockAdjustmentsModule } from "./stock-adjustments.ts";
import { suppliersModule } from "./suppliers.ts";
import { webhooksModule } from "./webhooks.ts";

/** Every feature module of the service, in dependency order. */
export const allModules: readonly Module[] = [
  foundationModule,
  catalogModule,
  suppliersModule,
  purchaseOrdersModule,
  documentsModule,
  receiptsModule,
  stockAdjustmentsModule,
  webhooksModule,
  shopifyInboundModule,
  shopifyOAuthModule,
  staffModule,
  consoleModule,
];
