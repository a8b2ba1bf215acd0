/**
 * The receipts module: recording (and previewing) receipts of a purchase order, voiding them, and
 * reading them. Routes and other modules use only what this file exports.
 */
export { previewReceiptFor, type ReceiptPreview } from "./preview.ts";
export { getReceipt, listReceipts } from "./queries.ts";
export { type RecordedReceipt, recordReceipt } from "./record.ts";
export { orderIdOfReceipt, ordersOfReceipts } from "./repository.ts";
export type { ReceiptBody, ReceiptCall, StoreRef } from "./types.ts";
export { voidReceipt } from "./void.ts";
