/** The purchase order API other modules (receipts, payments, documents) build on. */

export { fetchLookups, type LineDraft, resolveLines } from "./lines.ts";
export type { PaymentStatus } from "./payment-status.ts";
export { paymentStatusOf, refreshPaymentStatus } from "./payment-status.ts";
export {
  type LineRow,
  locationRef,
  type OrderRecord,
  type PresentedPayment,
  type PresentedReceipt,
  type PurchaseOrder,
  type PurchaseOrderSummary,
  presentPayment,
  presentPurchaseOrder,
  presentPurchaseOrderSummary,
  presentReceipt,
  presentReceiptLine,
  RECEIPT_LINE_COLUMNS,
  type ReceiptLineRow,
  type ReceiptPresentExtra,
  type ReceiptRow,
} from "./presenter.ts";
export {
  addUnorderedLines,
  bookReceivedQuantities,
  setStatusAfterReceiving,
  setStatusAfterVoid,
  settlePaymentChange,
} from "./receiving.ts";
export {
  type Actor,
  actorOf,
  addHistory,
  assembleOrders,
  type HistoryType,
  loadOrderParts,
  loadPurchaseOrder,
  loadPurchaseOrders,
  lockOrderRecord,
  lockPurchaseOrder,
  type OrderParts,
  orderCharges,
  orderLines,
  orderRecordQuery,
  presentSummaries,
  type ReceiptRecord,
  SYSTEM_ACTOR,
  syncKey,
} from "./repository.ts";
export { type IncomingDelta, incomingOf, orderReference, pushIncoming, pushIncomingChange } from "./stock.ts";
export { recomputeTotals } from "./totals.ts";
export {
  assertCan,
  can,
  deriveStatusAfterReceiving,
  isOpen,
  OPEN_STATUSES,
  outstandingOf,
  refusal,
  resolveTarget,
  statusAfterCancel,
  TRANSITIONS,
} from "./transitions.ts";
