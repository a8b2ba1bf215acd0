/**
 * What the OpenAPI document says about one operation beyond its route's schema (which carries its tag
 * and summary). The scope and the Idempotency-Key rule are added from the route's own `config`
 * (document.ts), so they cannot drift from what the server enforces.
 */
export interface OperationDoc {
  /** Stable: generated clients name their functions after it, so it never changes once published. */
  operationId: string;
  /** The contract's rules for this call: states, events emitted, limits (Markdown). */
  description: string;
}

/** The document's top-level tags, in the order the docs page shows them. */
export const TAGS = [
  { name: "account", description: "Which store and key a request runs as." },
  {
    name: "catalog",
    description:
      "A read-only mirror of the platform's products, variants, locations and inventory levels, a few seconds behind the platform. Ids are the platform's ids.",
  },
  {
    name: "suppliers",
    description:
      "Suppliers, their catalogs of items with tiered prices, archiving and merging. Writes need `write:suppliers`.",
  },
  {
    name: "purchase orders",
    description:
      "Orders to suppliers (and returns) through their lifecycle: `draft`, `ordered`, `in_transit`, `partial`, `received`, `closed`; `archived` is a separate flag. Writes need `write:purchase_orders`. The order's PDF and sending it to the supplier are here too.",
  },
  {
    name: "receipts",
    description:
      "Deliveries booked against an order: stock moves in, the order's status follows. Recording one requires an `Idempotency-Key`; a void reverses the stock instead of editing numbers.",
  },
  {
    name: "payments",
    description:
      "Payments made to the supplier for an order, one row each, so part payments are expressible; the order's `payment_status` follows.",
  },
  {
    name: "stock adjustments",
    description:
      "Drafted changes to stock at one location, applied at once (with an `Idempotency-Key`) or cancelled. Writes need `write:inventory`.",
  },
  {
    name: "webhooks",
    description:
      "Signed HTTPS deliveries of the store's events to at most 10 endpoints, their delivery log and redelivery. Every route needs the `webhooks` scope.",
  },
] as const;
