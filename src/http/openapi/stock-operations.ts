import type { OperationDoc } from "./operation.ts";
import { GONE_LOCATION, LINE_BUDGET } from "./order-operations.ts";

/** Receipts, payments and stock adjustments: what moves stock or money. */
export const STOCK_OPERATIONS: Record<string, OperationDoc> = {
  "GET /v2/stock_levels": {
    operationId: "listStockLevels",
    description:
      "Not part of the contract's list; added by this service for people's screens (the merchant console's stock and low-stock pages). The rows of /v2/inventory_levels with the item and location named, `on_order` (what this store's open purchase orders still bring there; drafts are not on order), the alert rules that apply (`low_stock_threshold`, `reorder_point`, `max_stock`), `below` (the lines the level is at or below: on hand for low stock, available plus incoming for the reorder point), `suggested_quantity` and the item's `primary_supplier`. Filters: `q` (words that must each start a word, in any case, of the product title, variant title, SKU or barcode, found through the index /v2/variants searches; a search with no letter or digit is 400 `invalid_filter`), `location_id`, `inventory_item_id` (one id or up to 250 separated by commas; an id beyond 2^53-1 is 400 `invalid_filter`), `low_stock=true` (tracked items below a line only). A page of at most `limit` (1 to 250, default 50) rows, oldest update first; a cursor is valid only with the filters that gave it.",
  },
  "GET /v2/purchase_orders/{id}/receipts": {
    operationId: "listReceipts",
    description: `The order's receipts, oldest first, voided ones included (with \`voided_at\`). Paged by \`limit\` and \`cursor\`. ${LINE_BUDGET}`,
  },
  "POST /v2/purchase_orders/{id}/receipts": {
    operationId: "recordReceipt",
    description: `Books a delivery against an \`ordered\`, \`in_transit\` or \`partial\` order (a draft, never placed, is 422 \`invalid_transition\`; so are received and closed orders): stock moves in, charges are shared out into landed costs, and the order becomes \`partial\` once anything good arrived or \`received\` when nothing is outstanding. ${GONE_LOCATION} Requires an \`Idempotency-Key\` (else 400 \`idempotency_key_required\`): retry with the same key and body after a timeout and the stock moves once. Answers 201. Emits \`purchase_order.receipt_recorded\` (the order with the receipt) and, when complete, \`purchase_order.received\`.`,
  },
  "POST /v2/purchase_orders/{id}/receipts/preview": {
    operationId: "previewReceipt",
    description:
      "Takes a receipt body and answers the receipt as it would be booked (status after, surplus, allocations, landed costs) without writing anything or moving stock; it refuses exactly what the receipt refuses. Needs only `read`. Not part of the contract's list; added by this service.",
  },
  "GET /v2/purchase_orders/{id}/receipts/{receipt_id}": {
    operationId: "getReceipt",
    description: "One receipt of the order.",
  },
  "POST /v2/purchase_orders/{id}/receipts/{receipt_id}/void": {
    operationId: "voidReceipt",
    description: `Undoes a booked receipt: new movements reverse exactly the stock it moved, cancellations it made are put back, lines it added are cancelled, and the order's status is derived again. A closed order, or a receipt already voided, is 422 \`invalid_transition\`. Stock that would move where the platform no longer takes it is refused (\`location_id\` is the receipt's): ${GONE_LOCATION} Emits \`receipt.voided\` (the receipt with its order) and \`purchase_order.updated\`.`,
  },
  "GET /v2/purchase_orders/{id}/payments": {
    operationId: "listPayments",
    description: "The order's payments, oldest first.",
  },
  "POST /v2/purchase_orders/{id}/payments": {
    operationId: "recordPayment",
    description:
      "Adds one payment; part payments are allowed, in every state (a draft takes deposits, a closed order takes payments). `payment_status` becomes `partial` or `paid`. Answers 201. Emits `purchase_order.updated`.",
  },
  "DELETE /v2/purchase_orders/{id}/payments/{payment_id}": {
    operationId: "deletePayment",
    description: "Removes one payment; `payment_status` follows. Emits `purchase_order.updated`.",
  },
  "POST /v2/purchase_orders/{id}/mark_paid": {
    operationId: "markPurchaseOrderPaid",
    description:
      "Records one payment for the outstanding balance (`paid_on` defaults to today in the store's time zone). An order already paid, or with a zero total, is 422 `invalid_transition`. Emits `purchase_order.updated`.",
  },
  "POST /v2/purchase_orders/{id}/mark_unpaid": {
    operationId: "markPurchaseOrderUnpaid",
    description:
      "Deletes every payment of the order. An unpaid order is 422 `invalid_transition`. Emits `purchase_order.updated`.",
  },
  "GET /v2/stock_adjustments": {
    operationId: "listStockAdjustments",
    description: `Adjustments with their lines, oldest update first, filtered by \`status\` (comma-separated) and \`location_id\`. Paged by \`limit\` (1 to 250, default 50) and \`cursor\`. ${LINE_BUDGET}`,
  },
  "POST /v2/stock_adjustments": {
    operationId: "createStockAdjustment",
    description: `Creates a draft at one active, visible location with 1 to 1000 lines; nothing moves until it is applied. ${GONE_LOCATION} A line naming two ids that disagree is \`mismatch\`, an item named twice \`duplicate\`. Answers 201. Emits \`stock_adjustment.updated\` (the catalogue has no \`.created\`).`,
  },
  "GET /v2/stock_adjustments/{id}": {
    operationId: "getStockAdjustment",
    description: "One adjustment with its lines.",
  },
  "PATCH /v2/stock_adjustments/{id}": {
    operationId: "updateStockAdjustment",
    description:
      "Changes a `draft`; `lines` replaces the whole set. An applied or cancelled adjustment is 422 `invalid_transition`. Emits `stock_adjustment.updated` (changes within 5 s fold into one event); a PATCH that changes nothing emits nothing.",
  },
  "POST /v2/stock_adjustments/{id}/apply": {
    operationId: "applyStockAdjustment",
    description:
      "Applies a `draft`: each line moves `available` and `on_hand` by its delta at the location (negative results are allowed), `quantity_before` and `quantity_after` are recorded, and the movements are pushed to the platform. Takes no body. Requires an `Idempotency-Key` (else 400 `idempotency_key_required`), so a retry never moves stock twice. Another state is 422 `invalid_transition`; a location or level the platform dropped since the draft was written is 422 (`location_id` `inactive`, `lines.N.variant_id` `not_stocked`), nothing moved. Emits `stock_adjustment.applied`.",
  },
  "POST /v2/stock_adjustments/{id}/cancel": {
    operationId: "cancelStockAdjustment",
    description:
      "Cancels a `draft`; nothing moves. Takes no body. Another state is 422 `invalid_transition`. Emits `stock_adjustment.cancelled`.",
  },
};
