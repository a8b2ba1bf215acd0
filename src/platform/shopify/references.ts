import { PlatformPermanentError } from "../connector.ts";

/**
 * The Stockroom document behind a push, read from the movements' reference
 * (`stockroom://purchase_orders/7`, `stockroom://purchase_orders/7/receipts/12`,
 * `stockroom://stock_adjustments/3`), and the URIs Shopify is given for it (docs/decisions.md,
 * "Shopify connector").
 */
export interface StockroomDocument {
  type: "Receipt" | "StockAdjustment" | "PurchaseOrder";
  id: number;
  /** The purchase order whose incoming stock the document moves (a receipt's order, or the order). */
  orderId: number | null;
}

export function documentOf(reference: string | null): StockroomDocument {
  const receipt = /^stockroom:\/\/purchase_orders\/(\d+)\/receipts\/(\d+)$/.exec(reference ?? "");
  if (receipt) return { type: "Receipt", id: Number(receipt[2]), orderId: Number(receipt[1]) };
  const order = /^stockroom:\/\/purchase_orders\/(\d+)$/.exec(reference ?? "");
  if (order) return { type: "PurchaseOrder", id: Number(order[1]), orderId: Number(order[1]) };
  const adjustment = /^stockroom:\/\/stock_adjustments\/(\d+)$/.exec(reference ?? "");
  if (adjustment) return { type: "StockAdjustment", id: Number(adjustment[1]), orderId: null };
  throw new PlatformPermanentError(`no Shopify document for the reference ${JSON.stringify(reference)}`);
}

/** `referenceDocumentUri`: shows the app's document in the merchant's inventory history. */
export function referenceDocumentUri(document: StockroomDocument): string {
  return `gid://stockroom/${document.type}/${document.id}`;
}

const LEDGER_PATHS = {
  Receipt: "receipts",
  StockAdjustment: "stock-adjustments",
  PurchaseOrder: "purchase-orders",
} as const;

/**
 * `ledgerDocumentUri` of a call that is not `available` (Shopify requires one there): `incoming`
 * belongs to the purchase order; units parked by `quality_control` to the document itself.
 */
export function ledgerDocumentUri(document: StockroomDocument, name: "incoming" | "quality_control"): string {
  if (name === "quality_control") return `stockroom://${LEDGER_PATHS[document.type]}/${document.id}`;
  if (document.orderId === null)
    throw new PlatformPermanentError(
      `a ${document.type} moves no incoming stock (stockroom document ${document.id})`,
    );
  return `stockroom://purchase-orders/${document.orderId}`;
}
