/**
 * Purchase order shapes (contract, plus additive fields), shared by the order, receipt and payment
 * routes. Response schemas list every field the presenters give (Fastify serializes by them).
 */
import { type TProperties, Type } from "@sinclair/typebox";
import { HISTORY_TYPES } from "../../../domain/purchase-orders/index.ts";
import {
  CURRENCY_PATTERN,
  DateString,
  DECIMAL_PATTERN,
  documentedRules,
  Id,
  Money,
  MoneyInput,
  Named,
  Nullable,
  OneOf,
  PlatformId,
  RecordSource,
  Timestamp,
} from "../../schemas/common.ts";

const Str = (max = 1000) => Type.String({ maxLength: max });
const OptText = (max = 1000) => Type.Optional(Nullable(Str(max)));
const Enum = <T extends string>(values: readonly T[]) =>
  Type.Unsafe<T>({ type: "string", enum: [...values] });

export const SyncStateSchema = Named(
  "PlatformSyncState",
  Type.Object({
    state: Enum(["pending", "synced", "failed"] as const),
    attempted_at: Nullable(Timestamp),
    error: Nullable(Type.String()),
  }),
);

export const LocationRefSchema = Named(
  "LocationRef",
  Type.Object({ id: Type.Integer(), name: Type.String() }),
);

export const LineWarningSchema = Named(
  "LineWarning",
  Type.Object({
    code: Enum(["below_min_order_qty", "not_pack_multiple", "converted_cost", "no_cost"] as const),
    message: Type.String(),
    suggested_quantity: Nullable(
      Type.Integer({ description: "The catalog terms' suggestion; null on converted_cost and no_cost." }),
    ),
  }),
);

export const PurchaseOrderLineSchema = Named(
  "PurchaseOrderLine",
  Type.Object({
    id: Type.Integer(),
    position: Type.Integer(),
    product_title: Nullable(Type.String()),
    variant_title: Nullable(Type.String()),
    sku: Nullable(Type.String()),
    supplier_sku: Nullable(Type.String()),
    barcode: Nullable(Type.String()),
    pack_code: Nullable(Type.String()),
    inventory_item_id: Nullable(Type.Integer()),
    variant_id: Nullable(Type.Integer()),
    product_id: Nullable(Type.Integer()),
    location_id: Nullable(Type.Integer()),
    quantity: Type.Integer(),
    cancelled_quantity: Type.Integer(),
    received_quantity: Type.Integer(),
    outstanding_quantity: Type.Integer(),
    unit_cost: Money,
    discount_percent: Nullable(Type.Number()),
    line_total: Money,
    taxable: Type.Boolean(),
    tax_rate_percent: Type.Number(),
    weight_grams: Type.Integer(),
    supplier_note: Nullable(Type.String()),
    internal_note: Nullable(Type.String()),
    tax_rate_id: Nullable(
      Type.Integer({ description: "Additive: the line's own tax rate, null = the order's." }),
    ),
    tax_amount: Type.String({ description: "Additive: tax on this line, in the order currency." }),
    warnings: Type.Array(LineWarningSchema, {
      description:
        "Additive: supplier catalog warnings (minimum order quantity, pack size) and cost warnings (a cost converted from the store currency, a zero cost).",
    }),
  }),
);

const AllocationMethod = Enum(["value", "quantity", "weight", "custom", "none"] as const);
const ChargeKind = Enum(["shipping", "other"] as const);

export const PurchaseOrderChargeSchema = Named(
  "PurchaseOrderCharge",
  Type.Object({
    id: Type.Integer(),
    kind: ChargeKind,
    label: Nullable(Type.String()),
    amount: Money,
    currency: Type.String(),
    amount_in_order_currency: Money,
    tax_amount: Money,
    billed_by_supplier: Type.Boolean(),
    allocation_method: AllocationMethod,
    position: Type.Integer({ description: "Additive." }),
    custom_split: Nullable(
      Type.Array(Type.Object({ position: Type.Integer(), amount: Money }), { description: "Additive." }),
    ),
  }),
);

export const ReceiptSchema = Named(
  "Receipt",
  Type.Object({
    id: Type.Integer(),
    purchase_order_id: Type.Integer(),
    received_at: Nullable(Timestamp),
    voided_at: Nullable(Timestamp),
    source: RecordSource,
    location: LocationRefSchema,
    invoice: Type.Object({
      reference: Nullable(Type.String()),
      date: Nullable(DateString),
      total: Nullable(Money),
    }),
    exchange_rate: Type.Number(),
    rejected_disposition: Enum(["replace", "remove"] as const),
    note: Nullable(Type.String()),
    lines: Type.Array(
      Type.Object({
        id: Type.Integer(),
        line_id: Type.Integer(),
        quantity: Type.Integer(),
        surplus_quantity: Type.Integer(),
        rejected_quantity: Type.Integer(),
        unit_cost: Money,
        landed_unit_cost: Money,
        allocated_charge_amount: Money,
      }),
    ),
    platform_sync: SyncStateSchema,
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);

export const PaymentSchema = Named(
  "Payment",
  Type.Object({
    id: Type.Integer(),
    amount: Money,
    currency: Type.String(),
    paid_on: DateString,
    method: Type.String(),
    reference: Nullable(Type.String()),
    note: Nullable(Type.String()),
    created_at: Timestamp,
  }),
);

const ShipToAddress = Named(
  "ShipToAddress",
  Type.Object(
    {
      name: Nullable(Type.String()),
      text: Nullable(Type.String()),
      line1: Nullable(Type.String()),
      line2: Nullable(Type.String()),
      city: Nullable(Type.String()),
      province_code: Nullable(Type.String()),
      zip: Nullable(Type.String()),
      country: Nullable(Type.String()),
      country_code: Nullable(Type.String()),
      phone: Nullable(Type.String()),
    },
    {
      description:
        "`text` holds ship_to_override when one is set (other fields null); otherwise the order location's address.",
    },
  ),
);

const summaryProperties = {
  id: Type.Integer(),
  sequential_id: Type.Integer(),
  number: Type.String(),
  status: Enum(["draft", "ordered", "in_transit", "partial", "received", "closed"] as const),
  type: Enum(["purchase", "return"] as const),
  archived: Type.Boolean(),
  archived_at: Nullable(Timestamp),
  source: RecordSource,
  supplier: Type.Object({ id: Type.Integer(), name: Type.String() }),
  supplier_id: Type.Integer(),
  currency: Type.String(),
  exchange_rate: Type.Object({
    rate: Type.Number(),
    base_currency: Type.String(),
    date: DateString,
    source: Enum(["identity", "store_rates", "manual"] as const),
  }),
  reference: Nullable(Type.String()),
  customer_order_number: Nullable(Type.String()),
  supplier_order_number: Nullable(Type.String()),
  invoice_number: Nullable(Type.String()),
  account_number: Nullable(Type.String()),
  notes: Nullable(Type.String()),
  expected_at: Nullable(DateString),
  payment_due_on: Nullable(DateString),
  payment_status: Enum(["unpaid", "partial", "paid"] as const),
  paid_at: Nullable(Timestamp),
  location: LocationRefSchema,
  updates_stock: Type.Boolean(),
  ships_to_customer: Type.Boolean(),
  ship_to_address: Nullable(ShipToAddress),
  tax: Type.Object({
    rate_id: Nullable(Type.Integer()),
    name: Nullable(Type.String()),
    rate_percent: Type.Number(),
    taxes_included: Type.Boolean(),
    charges_taxable: Type.Boolean(),
  }),
  totals: Type.Object({
    currency: Type.String(),
    subtotal: Money,
    charges: Money,
    tax: Money,
    total: Money,
  }),
  lines: Type.Array(PurchaseOrderLineSchema),
  charges: Type.Array(PurchaseOrderChargeSchema),
  platform_sync: SyncStateSchema,
  sent_at: Nullable(Timestamp),
  ordered_at: Nullable(Timestamp),
  in_transit_at: Nullable(Timestamp),
  received_at: Nullable(Timestamp),
  closed_at: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
  return_reason: Nullable(Type.String({ description: "Additive." })),
  return_source_po_id: Nullable(Type.Integer({ description: "Additive." })),
  ship_to_override: Nullable(Type.String({ description: "Additive." })),
  bill_to_override: Nullable(Type.String({ description: "Additive." })),
} satisfies TProperties;

export const PurchaseOrderSummarySchema = Named("PurchaseOrderSummary", Type.Object(summaryProperties));

export const PurchaseOrderSchema = Named(
  "PurchaseOrder",
  Type.Object({
    ...summaryProperties,
    receipts: Type.Array(ReceiptSchema),
    payments: Type.Array(PaymentSchema),
  }),
);

export const HistoryRowSchema = Named(
  "PurchaseOrderHistoryEntry",
  Type.Object({
    type: OneOf(HISTORY_TYPES),
    at: Timestamp,
    by: Type.String(),
    via: Nullable(Type.String()),
    data: Type.Object({}, { additionalProperties: true }),
  }),
);

// ---------------------------------------------------------------------------------------------------
// Input

const lineInputProperties = {
  variant_id: Type.Optional(PlatformId),
  inventory_item_id: Type.Optional(PlatformId),
  product_title: OptText(500),
  variant_title: OptText(500),
  sku: OptText(255),
  supplier_sku: OptText(255),
  barcode: OptText(255),
  pack_code: OptText(255),
  location_id: Type.Optional(Nullable(PlatformId)),
  unit_cost: Type.Optional(MoneyInput),
  discount_percent: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 100 }))),
  weight_grams: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000 })),
  taxable: Type.Optional(Type.Boolean()),
  tax_rate_id: Type.Optional(Nullable(Id)),
  supplier_note: OptText(5000),
  internal_note: OptText(5000),
} satisfies TProperties;
const Quantity = Type.Integer({ minimum: 1, maximum: 100_000_000 });

/** A line in PATCH: `id` keeps an existing line (fields left out stay), none adds one. */
export const LineInputSchema = Named(
  "PurchaseOrderLineUpdate",
  Type.Object(
    { id: Type.Optional(Id), ...lineInputProperties, quantity: Type.Optional(Quantity) },
    { additionalProperties: false },
  ),
);

/** A new line (create, POST lines): no `id`, and `quantity` is required (the server refused both already). */
export const NewLineInputSchema = Named(
  "PurchaseOrderLineInput",
  Type.Object({ ...lineInputProperties, quantity: Quantity }, { additionalProperties: false }),
);

export const ChargeInputSchema = Named(
  "PurchaseOrderChargeInput",
  Type.Object(
    {
      kind: Type.Optional(ChargeKind),
      label: OptText(255),
      amount: MoneyInput,
      currency: Type.Optional(
        Nullable(
          Type.String({ minLength: 3, maxLength: 3, ...documentedRules({ pattern: CURRENCY_PATTERN }) }),
        ),
      ),
      billed_by_supplier: Type.Optional(Type.Boolean()),
      allocation_method: Type.Optional(AllocationMethod),
      custom_split: Type.Optional(
        Nullable(
          Type.Array(
            Type.Object(
              { position: Type.Integer({ minimum: 1 }), amount: MoneyInput },
              { additionalProperties: false },
            ),
            { maxItems: 1000 },
          ),
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

export const MAX_LINES = 1000;
const Lines = Type.Array(LineInputSchema, { minItems: 1, maxItems: MAX_LINES });
const NewLines = Type.Array(NewLineInputSchema, { minItems: 1, maxItems: MAX_LINES });

const orderInputProperties = {
  number: OptText(100),
  currency: Type.Optional(
    Nullable(Type.String({ minLength: 3, maxLength: 3, ...documentedRules({ pattern: CURRENCY_PATTERN }) })),
  ),
  type: Type.Optional(Enum(["purchase", "return"] as const)),
  return_reason: OptText(1000),
  return_source_po_id: Type.Optional(Nullable(Id)),
  location_id: Type.Optional(Nullable(PlatformId)),
  tax_rate_id: Type.Optional(Nullable(Id)),
  taxes_included: Type.Optional(Type.Boolean()),
  charges_taxable: Type.Optional(Type.Boolean()),
  reference: OptText(255),
  customer_order_number: OptText(255),
  supplier_order_number: OptText(255),
  invoice_number: OptText(255),
  account_number: OptText(255),
  notes: OptText(10000),
  expected_at: Type.Optional(Nullable(DateString)),
  payment_due_on: Type.Optional(Nullable(DateString)),
  ship_to_override: OptText(2000),
  bill_to_override: OptText(2000),
  ships_to_customer: Type.Optional(Type.Boolean()),
  updates_stock: Type.Optional(Type.Boolean()),
  exchange_rate: Type.Optional(
    Type.Unsafe<number | string | null>({
      type: ["number", "string", "null"],
      description:
        "Additive: order currency → store currency; sets exchange_rate.source manual; null reverts.",
      ...documentedRules({ pattern: DECIMAL_PATTERN }),
    }),
  ),
  charges: Type.Optional(Type.Array(ChargeInputSchema, { maxItems: 100 })),
} satisfies TProperties;

export const OrderCreateSchema = Named(
  "PurchaseOrderInput",
  Type.Object({ supplier_id: Id, ...orderInputProperties, lines: NewLines }, { additionalProperties: false }),
);

export const OrderPatchSchema = Named(
  "PurchaseOrderUpdate",
  Type.Object(
    { supplier_id: Type.Optional(Id), ...orderInputProperties, lines: Type.Optional(Lines) },
    { additionalProperties: false },
  ),
);

export const AddLinesSchema = Named(
  "PurchaseOrderLinesInput",
  Type.Object({ lines: NewLines }, { additionalProperties: false }),
);
