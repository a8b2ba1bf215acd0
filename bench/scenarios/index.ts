import { adjustmentApply } from "./adjustments.ts";
import { catalogImport, variantsBySku, variantsPage } from "./catalog.ts";
import { pdfWithWhoami } from "./mixed.ts";
import { orderCreate, orderGet, orderList, orderPdf } from "./orders.ts";
import { receipt } from "./receipts.ts";
import type { Scenario } from "./scenario.ts";
import { shopifyImport, shopifyPushes } from "./shopify.ts";
import { orderGetSmall, variantGet } from "./single-reads.ts";
import { supplierGet, supplierList } from "./suppliers.ts";
import { webhooks } from "./webhooks.ts";
import { whoami } from "./whoami.ts";

/** Every scenario, in the order they run (later ones reuse fixtures earlier ones built). */
export const scenarios: readonly Scenario[] = [
  whoami,
  catalogImport,
  shopifyImport,
  variantsPage,
  variantsBySku,
  variantGet,
  supplierGet,
  supplierList,
  orderCreate,
  orderGet,
  orderGetSmall,
  orderPdf,
  pdfWithWhoami,
  orderList,
  receipt,
  adjustmentApply,
  shopifyPushes,
  webhooks,
];
