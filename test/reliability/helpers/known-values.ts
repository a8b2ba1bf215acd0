/**
 * Real ids and strings of a populated store for generated requests, so they reach records (and the
 * handlers' rules) instead of stopping at 404 or `not_found` details. Shared by the fuzz and the bounds
 * tests.
 */
import type { Populated } from "./fixture.ts";

/** Known ids for a path parameter of a route. */
export function pathIds(fx: Populated, path: string, param: string): Array<number | string> {
  const i = fx.ids;
  if (param === "line_id") return i.line;
  if (param === "receipt_id") return i.receipt.map((r) => r.id);
  if (param === "payment_id") return i.payment.map((p) => p.id);
  if (param === "delivery_id") return i.delivery.map((d) => d.id);
  if (param === "inventory_item_id") return i.inventory_item;
  if (path.startsWith("/v2/suppliers")) return i.supplier;
  if (path.startsWith("/v2/purchase_orders")) return i.purchase_order;
  if (path.startsWith("/v2/stock_adjustments")) return i.stock_adjustment;
  if (path.startsWith("/v2/webhooks")) return i.webhook;
  if (path.startsWith("/v2/products")) return i.product;
  if (path.startsWith("/v2/variants")) return i.variant;
  if (path.startsWith("/v2/locations")) return i.location;
  return [];
}

/** Known ids for an integer body or query field of this name. */
export function idsFor(fx: Populated, field: string): number[] | undefined {
  const i = fx.ids;
  switch (field) {
    case "supplier_id":
    case "target_id":
    case "source_ids":
      return i.supplier;
    case "variant_id":
      return i.variant;
    case "inventory_item_id":
      return i.inventory_item;
    case "location_id":
      return i.location;
    case "line_id":
    case "id":
      return i.line;
    case "tax_rate_id":
      return i.tax_rate;
    case "return_source_po_id":
      return i.purchase_order;
    default:
      return undefined;
  }
}

/** Known strings for a string field of this name (and a few wrong ones). */
export function stringsFor(fx: Populated, field: string): string[] | undefined {
  switch (field) {
    case "currency":
      return ["USD", "EUR", "JPY", "usd", "XXX", "ZZZ"];
    case "event_id":
      return fx.ids.event.slice(-5);
    case "events":
      return ["*", "supplier.created", "purchase_order.updated", "item.low_stock", "nope.nope"];
    case "status":
      return ["draft", "ordered,partial", "applied", "active", "paused", "succeeded", "failed", "bogus"];
    case "url":
      return ["https://localhost:1/fuzz"];
    default:
      return undefined;
  }
}
