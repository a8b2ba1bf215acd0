/**
 * The events the service POSTs to webhook endpoints, as OpenAPI 3.1 `webhooks`: one entry per event of
 * the catalogue, its payload the envelope with the event's `data` shape (by `$ref` to the same
 * components the API's answers use), its headers, and what the receiver must answer.
 */
import { EVENT_CATALOGUE } from "../../domain/webhooks/index.ts";
import { SCHEMA_REF_PREFIX } from "./components.ts";

type EventName = (typeof EVENT_CATALOGUE)[number];

// biome-ignore lint/suspicious/noExplicitAny: the document as @fastify/swagger builds it, plain JSON.
type Json = any;

const ref = (name: string) => ({ $ref: `${SCHEMA_REF_PREFIX}${name}` });

/** Each event: when it fires (the contract's catalogue) and the envelope schema its body follows. */
export const EVENTS: Record<EventName, { fires: string; payload: string }> = {
  "purchase_order.created": { fires: "An order is created, in any state.", payload: "PurchaseOrderEvent" },
  "purchase_order.updated": {
    fires: "Anything on the order changed; changes within 5 s fold into one event with the latest state.",
    payload: "PurchaseOrderEvent",
  },
  "purchase_order.ordered": {
    fires: "The order is placed with the supplier.",
    payload: "PurchaseOrderEvent",
  },
  "purchase_order.in_transit": { fires: "The order is marked on the way.", payload: "PurchaseOrderEvent" },
  "purchase_order.receipt_recorded": {
    fires: "A delivery is received, a partial one included; `receipt` beside `data` is the receipt booked.",
    payload: "ReceiptRecordedEvent",
  },
  "purchase_order.received": { fires: "The order is fully received.", payload: "PurchaseOrderEvent" },
  "purchase_order.closed": {
    fires: "The order is closed and its outstanding quantity retracted.",
    payload: "PurchaseOrderEvent",
  },
  "purchase_order.reopened": { fires: "A closed order is reopened.", payload: "PurchaseOrderEvent" },
  "purchase_order.archived": { fires: "The order is archived.", payload: "PurchaseOrderEvent" },
  "purchase_order.deleted": {
    fires: "A draft is deleted; `data` is the order as it was.",
    payload: "PurchaseOrderEvent",
  },
  "purchase_order.overdue": {
    fires: "The order is past its expected date, from a daily scan (once per order per day).",
    payload: "PurchaseOrderEvent",
  },
  "receipt.voided": {
    fires:
      "A booked receipt is undone and its stock reversed; `data` is the receipt with its `purchase_order`.",
    payload: "ReceiptVoidedEvent",
  },
  "supplier.created": { fires: "A supplier is created.", payload: "SupplierEvent" },
  "supplier.updated": {
    fires: "A supplier changed; changes within 5 s fold into one event.",
    payload: "SupplierEvent",
  },
  "supplier.archived": { fires: "A supplier is archived.", payload: "SupplierEvent" },
  "supplier.merged": { fires: "Suppliers were merged; `data` is the survivor.", payload: "SupplierEvent" },
  "stock_adjustment.updated": {
    fires: "A draft adjustment is created or changed; changes within 5 s fold into one event.",
    payload: "StockAdjustmentEvent",
  },
  "stock_adjustment.applied": {
    fires: "An adjustment is applied and stock moved.",
    payload: "StockAdjustmentEvent",
  },
  "stock_adjustment.cancelled": {
    fires: "A draft adjustment is cancelled.",
    payload: "StockAdjustmentEvent",
  },
  "item.low_stock": {
    fires: "An item's shelf count crossed the store's low-stock threshold at a location.",
    payload: "ItemConditionEvent",
  },
  "item.out_of_stock": {
    fires: "An item's shelf count reached zero at a location (`threshold` is null).",
    payload: "ItemConditionEvent",
  },
  "item.reorder_point": {
    fires: "An item's available plus incoming hit its reorder point at a location.",
    payload: "ItemConditionEvent",
  },
  "item.overstock": { fires: "An item went above its maximum at a location.", payload: "ItemConditionEvent" },
  "webhook.test": {
    fires:
      "Only from the test call, to the one endpoint tested, whatever it subscribes to; `data` is the endpoint. Skipped by catch-up redelivery.",
    payload: "WebhookTestEvent",
  },
};

const envelopeProperties = {
  id: { type: "string", description: "The event's id: deduplicate on it (delivery is at least once)." },
  event: { type: "string", enum: [...EVENT_CATALOGUE], description: "The event's name." },
  api_version: { type: "integer", description: "The endpoint's API version: 2." },
  occurred_at: {
    type: "string",
    format: "date-time",
    description: "When it happened; events arrive unordered, so compare this or `data.updated_at`.",
  },
  shop: {
    type: "object",
    properties: { id: { type: "integer" }, domain: { type: "string" } },
    required: ["id", "domain"],
  },
};

/** The envelope with `data` of one shape (and any properties beside `data`). */
function envelope(description: string, data: Json, beside: Record<string, Json> = {}): Json {
  return {
    type: "object",
    description,
    properties: { ...envelopeProperties, data, ...beside },
    required: ["id", "event", "api_version", "occurred_at", "shop", "data", ...Object.keys(beside)],
  };
}

const ITEM_CONDITION = {
  type: "object",
  description: "An item's levels at one location when it crossed an alert rule of the store.",
  properties: {
    inventory_item_id: { type: "integer" },
    variant_id: { type: "integer" },
    product_id: { type: "integer" },
    sku: { type: ["string", "null"] },
    product_title: { type: "string" },
    variant_title: { type: "string" },
    location: ref("LocationRef"),
    available: { type: "integer" },
    incoming: { type: "integer" },
    on_hand: { type: "integer" },
    threshold: {
      type: ["integer", "null"],
      description: "The level crossed; null for item.out_of_stock, which has none.",
    },
  },
  required: [
    "inventory_item_id",
    "variant_id",
    "product_id",
    "sku",
    "product_title",
    "variant_title",
    "location",
    "available",
    "incoming",
    "on_hand",
    "threshold",
  ],
};

const EVENT_SCHEMAS: Record<string, Json> = {
  PurchaseOrderEvent: envelope(
    "A purchase_order.* event: `data` is the order as GET shows it.",
    ref("PurchaseOrder"),
  ),
  ReceiptRecordedEvent: envelope(
    "purchase_order.receipt_recorded: `data` is the order, `receipt` the receipt booked.",
    ref("PurchaseOrder"),
    { receipt: ref("Receipt") },
  ),
  ReceiptVoidedEvent: envelope("receipt.voided: `data` is the receipt with its order.", {
    allOf: [
      ref("Receipt"),
      { type: "object", properties: { purchase_order: ref("PurchaseOrder") }, required: ["purchase_order"] },
    ],
  }),
  SupplierEvent: envelope("A supplier.* event: `data` is the supplier as GET shows it.", ref("Supplier")),
  StockAdjustmentEvent: envelope(
    "A stock_adjustment.* event: `data` is the adjustment as GET shows it.",
    ref("StockAdjustment"),
  ),
  ItemCondition: ITEM_CONDITION,
  ItemConditionEvent: envelope("An item.* event: `data` is the item's condition.", ref("ItemCondition")),
  WebhookTestEvent: envelope("webhook.test: `data` is the endpoint tested (no secret).", ref("Webhook")),
};

const HEADERS: Array<[string, string, Json?]> = [
  ["X-Service-Event", "The event's name.", { type: "string", enum: [...EVENT_CATALOGUE] }],
  ["X-Service-Event-Id", "The event's id, as `id` in the body."],
  ["X-Service-Delivery-Id", "This attempt's id (the delivery log's `id`)."],
  ["X-Service-Webhook-Id", "The endpoint's id."],
  [
    "X-Service-Timestamp",
    "Unix time in seconds when this attempt was signed; refuse one more than 300 s away.",
  ],
  [
    "X-Service-Signature",
    "`sha256=` and the hex HMAC-SHA256, keyed with the endpoint's secret, of `<X-Service-Timestamp>.<raw body bytes>`; compare in constant time.",
    { type: "string", pattern: "^sha256=[0-9a-f]{64}$" },
  ],
];

const RECEIVED =
  "Received. Only a 2xx answer with an empty body, within 10 seconds, counts as delivered. Any other status, a 2xx with a body (even `ok`), a redirect (never followed) or no answer in 10 s is a failed delivery: it is retried after 1 min, 5 min, 30 min, 2 h, 12 h and then daily three times, after which the endpoint is disabled.";

function operationIdOf(name: string): string {
  const words = name.split(/[._]/);
  return `on${words.map((w) => w[0].toUpperCase() + w.slice(1)).join("")}`;
}

/** Adds `webhooks` (one entry per event) and the events' schemas to the document. */
export function describeWebhookEvents(document: Json): Json {
  document.components.schemas = { ...document.components.schemas, ...EVENT_SCHEMAS };
  document.webhooks = Object.fromEntries(
    EVENT_CATALOGUE.map((name) => {
      const event = EVENTS[name];
      return [
        name,
        {
          post: {
            operationId: operationIdOf(name),
            tags: ["webhooks"],
            summary: `${name} event`,
            description: `${event.fires} Sent to every active endpoint subscribed to \`${name}\` or \`*\`.`,
            security: [],
            parameters: HEADERS.map(([header, description, schema]) => ({
              name: header,
              in: "header",
              required: true,
              description,
              schema: schema ?? { type: "string" },
            })),
            requestBody: {
              required: true,
              content: { "application/json": { schema: ref(event.payload) } },
            },
            responses: { "2XX": { description: RECEIVED } },
          },
        },
      ];
    }),
  );
  return document;
}
