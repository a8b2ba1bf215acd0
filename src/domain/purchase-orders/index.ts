/** The purchase order API other modules (receipts, payments, documents) build on. */

export { paymentStatusOf, refreshPaymentStatus } from "./payment-status.ts";
export {
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
  type ReceiptPresentExtra,
} from "./presenter.ts";
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
