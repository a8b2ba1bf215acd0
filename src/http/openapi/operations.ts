import { CATALOG_OPERATIONS } from "./catalog-operations.ts";
import type { OperationDoc } from "./operation.ts";
import { ORDER_OPERATIONS } from "./order-operations.ts";
import { STOCK_OPERATIONS } from "./stock-operations.ts";
import { WEBHOOK_OPERATIONS } from "./webhook-operations.ts";

/** Every /v2 operation's documentation, keyed by `METHOD /v2/path/{param}` as the document prints it. */
export const OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  ...CATALOG_OPERATIONS,
  ...ORDER_OPERATIONS,
  ...STOCK_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
};
