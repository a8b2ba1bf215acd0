import {
  addPaymentAction,
  deletePaymentAction,
  deletePaymentPage,
  markPaidAction,
  markUnpaidAction,
  markUnpaidPage,
} from "./payments.ts";
import { voidReceiptAction, voidReceiptPage } from "./receipts.ts";
import { receiveAction, receivePage } from "./receive.ts";
import type { RouteAdder } from "./suppliers.ts";

/**
 * The receive screen, voiding a receipt and an order's payments (issue 20 items 4 and 5). Each handler
 * checks its own permission: receiving (owner, purchasing, inventory) or purchase orders (owner,
 * purchasing); a viewer's POST is refused before it reaches them.
 */
export function receivingRoutes(get: RouteAdder, post: RouteAdder): void {
  const order = "/stores/:id/purchase_orders/:po_id";
  get(`${order}/receive`, (c, p) => receivePage(c, p.po_id));
  post(`${order}/receive`, (c, p) => receiveAction(c, p.po_id));
  get(`${order}/receipts/:receipt_id/void`, (c, p) => voidReceiptPage(c, p.po_id, p.receipt_id));
  post(`${order}/receipts/:receipt_id/void`, (c, p) => voidReceiptAction(c, p.po_id, p.receipt_id));
  post(`${order}/payments`, (c, p) => addPaymentAction(c, p.po_id));
  get(`${order}/payments/:payment_id/delete`, (c, p) => deletePaymentPage(c, p.po_id, p.payment_id));
  post(`${order}/payments/:payment_id/delete`, (c, p) => deletePaymentAction(c, p.po_id, p.payment_id));
  post(`${order}/mark_paid`, (c, p) => markPaidAction(c, p.po_id));
  get(`${order}/mark_unpaid`, (c, p) => markUnpaidPage(c, p.po_id));
  post(`${order}/mark_unpaid`, (c, p) => markUnpaidAction(c, p.po_id));
}
