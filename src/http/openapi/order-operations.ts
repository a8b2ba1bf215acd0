import { LINES_PER_PAGE } from "../../db/keyset-paging.ts";
import { MAX_LINES_PER_ORDER } from "../../domain/purchase-orders/index.ts";
import type { OperationDoc } from "./operation.ts";

const REFUSED = "Any other state is 422 `invalid_transition` naming the order's state.";
const LINE_CAP = `An order holds at most ${MAX_LINES_PER_ORDER} lines: more is 422 \`limit_reached\` on \`lines\`.`;
/** Lists of documents with lines end a page early so an answer stays bounded (src/db/keyset-paging.ts). */
/** Where the platform no longer takes stock (docs/decisions.md, "Shopify webhooks and reconciliation"). */
export const GONE_LOCATION =
  "A location the store has but the platform no longer has active (deactivated or deleted there) is 422 `validation_failed` with detail code `inactive` on the field naming it (an item no longer stocked there: `not_stocked`), nothing changed; an unknown, another store's or hidden location is `not_found`.";
export const LINE_BUDGET = `A page also ends before its rows' lines pass ${LINES_PER_PAGE.toLocaleString("en-US")}: then \`has_more\` is true and \`next_cursor\` set whatever \`limit\` asked, so follow the cursor rather than counting rows.`;

/** Purchase orders: the resource, its lifecycle moves and its documents. */
export const ORDER_OPERATIONS: Record<string, OperationDoc> = {
  "GET /v2/purchase_orders": {
    operationId: "listPurchaseOrders",
    description: `Order summaries: each order with its lines and charges, without receipts and payments (GET one order for those). Oldest update first unless \`sort\` says otherwise (\`updated_at\`, \`-updated_at\`, \`created_at\`, \`-created_at\`: newest first; ties by id); \`q\` finds text, in any case, in the number, the reference or the supplier's order number; filtered by \`status\` (comma-separated; an unknown status is 400 \`invalid_filter\`), \`supplier_id\`, \`location_id\`, \`type\` (\`purchase\` or \`return\`); archived orders are left out unless \`archived\` is \`true\` (only archived) or \`all\`; \`lines=false\` leaves each order's \`lines\` empty (not read) for a list that shows orders only. Paged by \`limit\` (1 to 250, default 50) and \`cursor\`; a cursor is valid only with the filters that gave it. ${LINE_BUDGET}`,
  },
  "POST /v2/purchase_orders": {
    operationId: "createPurchaseOrder",
    description: `Creates a draft. Lines named by \`variant_id\` or \`inventory_item_id\` are resolved from the catalog mirror and priced from the supplier's catalog when no \`unit_cost\` is sent; each new line needs \`quantity\` and has no \`id\`. A foreign-currency order needs a store exchange rate or an \`exchange_rate\`. An archived supplier, a hidden location or another store's id is 422 \`validation_failed\` on that field. ${GONE_LOCATION} ${LINE_CAP} Answers 201. Emits \`purchase_order.created\`.`,
  },
  "GET /v2/purchase_orders/{id}": {
    operationId: "getPurchaseOrder",
    description: "One order with its lines, charges, receipts and payments.",
  },
  "PATCH /v2/purchase_orders/{id}": {
    operationId: "updatePurchaseOrder",
    description: `A draft accepts every field. An ordered, in-transit or partially received order accepts only notes, references, dates, charges and lines not yet received; a field not allowed in the current state is refused even when unchanged. Sending \`lines\` replaces the line set: include a line's \`id\` to keep it. ${LINE_CAP} Emits \`purchase_order.updated\` (changes within 5 s fold into one event), or \`purchase_order.received\` when the change leaves nothing outstanding after something was received; a PATCH that changes nothing emits nothing.`,
  },
  "DELETE /v2/purchase_orders/{id}": {
    operationId: "deletePurchaseOrder",
    description: `Deletes a draft with its history; answers 204 without a body. Emits \`purchase_order.deleted\`. ${REFUSED} Close or archive a placed order instead.`,
  },
  "GET /v2/purchase_orders/{id}/history": {
    operationId: "listPurchaseOrderHistory",
    description:
      "What happened to the order, newest first, one row per change. Paged by `limit` and `cursor`.",
  },
  "POST /v2/purchase_orders/{id}/mark_ordered": {
    operationId: "markPurchaseOrderOrdered",
    description: `Places a \`draft\`: it becomes \`ordered\` and its incoming quantities are pushed to the platform (never for a return). Emits \`purchase_order.ordered\`. ${REFUSED} Incoming expected where the platform no longer takes stock is refused: ${GONE_LOCATION}`,
  },
  "POST /v2/purchase_orders/{id}/mark_in_transit": {
    operationId: "markPurchaseOrderInTransit",
    description: `Records a shipment: an \`ordered\` or \`partial\` order becomes \`in_transit\`. Emits \`purchase_order.in_transit\`. ${REFUSED}`,
  },
  "POST /v2/purchase_orders/{id}/close": {
    operationId: "closePurchaseOrder",
    description: `An \`ordered\`, \`in_transit\`, \`partial\` or \`received\` order becomes \`closed\`; its outstanding incoming quantity is retracted from the platform. Emits \`purchase_order.closed\`. ${REFUSED}`,
  },
  "POST /v2/purchase_orders/{id}/reopen": {
    operationId: "reopenPurchaseOrder",
    description: `A \`closed\` order takes the status its lines give (\`ordered\`, \`partial\` or \`received\`) and its outstanding quantity is pushed again. Emits \`purchase_order.reopened\`. ${REFUSED}`,
  },
  "POST /v2/purchase_orders/{id}/archive": {
    operationId: "archivePurchaseOrder",
    description:
      "Sets `archived`, which hides the order from the default list. With `close: true` an open order is closed first (as the close call does). Archiving an archived order is 422 `invalid_transition`. Emits `purchase_order.archived` (and `purchase_order.closed` when it closed).",
  },
  "POST /v2/purchase_orders/{id}/unarchive": {
    operationId: "unarchivePurchaseOrder",
    description:
      "Clears `archived`; an order that is not archived is 422 `invalid_transition`. Emits `purchase_order.updated`.",
  },
  "POST /v2/purchase_orders/{id}/duplicate": {
    operationId: "duplicatePurchaseOrder",
    description:
      "Copies supplier, currency, location, tax settings, lines, charges, notes and account number into a new draft, clearing references and dates; the source gets a `duplicated` history row. Answers 201 with the new draft. Emits `purchase_order.created`.",
  },
  "POST /v2/purchase_orders/{id}/lines": {
    operationId: "addPurchaseOrderLines",
    description: `Appends lines to an \`ordered\`, \`in_transit\` or \`partial\` order and pushes their incoming quantities; each new line needs \`quantity\` and has no \`id\`. A draft takes lines through PATCH. ${LINE_CAP} Emits \`purchase_order.updated\`. ${REFUSED}`,
  },
  "POST /v2/purchase_orders/{id}/lines/{line_id}/cancel_remaining": {
    operationId: "cancelPurchaseOrderLineRemaining",
    description: `The line's unreceived quantity becomes \`cancelled_quantity\` and that incoming stock is retracted from the platform; the line and what it received stay. An open order with nothing left outstanding after something was received becomes \`received\`. A line with nothing outstanding, or an order not \`ordered\`, \`in_transit\` or \`partial\`, is 422 \`invalid_transition\`. Emits \`purchase_order.updated\` (and \`purchase_order.received\`).`,
  },
  "GET /v2/purchase_orders/{id}/pdf": {
    operationId: "getPurchaseOrderPdf",
    description:
      "The order as an A4 PDF, served inline with a `Content-Disposition` file name of the order number; `received=true` renders the receiving copy. PDFs render on a shared pool: a store may have 4 queued or rendering at once, beyond that 429 `rate_limited` with `Retry-After: 2`.",
  },
  "POST /v2/purchase_orders/{id}/send": {
    operationId: "sendPurchaseOrder",
    description:
      "Emails the order with its PDF to the supplier (the email leaves after the answer, from a job that retries transient failures; a final failure writes a `send_failed` history row). A `draft` is placed as by mark_ordered (`purchase_order.ordered`); an `ordered`, `in_transit` or `partial` order only gets a new `sent_at` (`purchase_order.updated`). Other states are 422 `invalid_transition`.",
  },
};
