/**
 * The purchase orders module's one public entry: every other module (receipts, payments, documents,
 * suppliers, the HTTP routes) uses purchase orders through what is exported here.
 */

export type { StoreInfo } from "./call.ts";
export { createPurchaseOrder, duplicateOrder } from "./create.ts";
export {
  type Actor,
  actorOf,
  addHistory,
  HISTORY_TYPES,
  type HistoryType,
  historyInsert,
  SYSTEM_ACTOR,
} from "./history.ts";
export {
  addLines,
  archiveOrder,
  cancelRemaining,
  closeOrder,
  deletePurchaseOrder,
  markInTransit,
  markOrdered,
  markSent,
  type Recipients,
  reopenOrder,
  unarchiveOrder,
} from "./lifecycle.ts";
export { assertLineCap, MAX_LINES_PER_ORDER } from "./line-cap.ts";
export {
  hasLinesText,
  linesPieces,
  type OrderWithLinesText,
  type PresentedOrder,
} from "./line-text.ts";
export { type LineDraft, type LineInput, lineRowOf, resolveLines } from "./lines.ts";
export {
  assembleOrders,
  loadOrderParts,
  loadPurchaseOrder,
  loadPurchaseOrders,
  lockOrderRecordForReceipt,
  type OrderParts,
  orderRecordQuery,
  orderRecordsByIdQuery,
  presentSummaries,
  type ReceiptRecord,
  syncKey,
} from "./loading.ts";
export { checkNamedLocation, fetchLookups } from "./lookups.ts";
export { onOrderQuantities } from "./on-order.ts";
export {
  loadOrderPartsInOneStatement,
  loadPurchaseOrderInTransaction,
  readPurchaseOrder,
  SMALL_ORDER_LINES,
  smallOrderReadAhead,
  smallPurchaseOrderAnswer,
} from "./one-statement-read.ts";
export type { OrderInput } from "./order-fields.ts";
export { OVERDUE_TASK, overdueTask } from "./overdue.ts";
export { type PaymentStatus, paymentStatusOf, refreshPaymentStatus } from "./payment-status.ts";
export {
  type LineRow,
  locationRef,
  type OrderRecord,
  type OrderRow,
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
  listHistory,
  listPurchaseOrders,
  listPurchaseOrdersAs,
  ORDER_SORTS,
  type OrderSort,
  parseStatusFilter,
} from "./queries.ts";
export {
  addUnorderedLines,
  bookAddedLinesTotals,
  bookReceivedQuantities,
  receiptBooking,
  setStatusAfterVoid,
  settlePaymentChange,
  withdrawUnorderedQuantities,
} from "./receiving.ts";
export {
  findOrderRow,
  formatOrderNumber,
  lockPurchaseOrder,
  nextSequentialIds,
  orderCharges,
  orderExists,
  orderLines,
  orderNumbersOf,
} from "./repository.ts";
export { type IncomingDelta, incomingOf, orderReference, pushIncoming, pushIncomingChange } from "./stock.ts";
export { moveOrdersToSupplier } from "./supplier-merge.ts";
export {
  presentSummariesWithLinesText,
  readOrderText,
  readPurchaseOrderText,
  type SummaryWithLinesText,
} from "./text-read.ts";
export { computeMoney, recomputeTotals } from "./totals.ts";
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
export { readAheadForPatch, updatePurchaseOrder } from "./update.ts";
