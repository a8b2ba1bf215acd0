/**
 * The documents module's one public entry: a purchase order's PDF (and its receiving copy) and
 * sending it to the supplier by email.
 */
export { renderPurchaseOrderPdf } from "./purchase-order-pdf.ts";
export type { PurchaseOrderDocument } from "./purchase-order-view.ts";
export { type PdfFile, purchaseOrderPdf, purchaseOrderPdfFile, type RenderedPdf } from "./rendering.ts";
export { SEND_EMAIL_JOB, type SendInput, sendEmailJob, sendPurchaseOrder } from "./send.ts";
