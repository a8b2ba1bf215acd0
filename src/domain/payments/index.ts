/**
 * The payments module: a purchase order's payments (list, add, delete) and marking it paid or unpaid.
 * Routes and other modules use only what this file exports.
 */
export type { PaymentBody } from "./rules.ts";
export {
  addPayment,
  deletePayment,
  listPayments,
  markPaid,
  markUnpaid,
  type PaymentsCall,
} from "./service.ts";
