import { Type } from "@sinclair/typebox";
import {
  DateString,
  DECIMAL_PATTERN,
  documentedRules,
  Money,
  Named,
  Nullable,
  PlatformId,
  RecordSource,
  Timestamp,
} from "../schemas/common.ts";

/** The supplier API's shapes (the contract's Supplier, SupplierInput and catalog rows), as TypeBox schemas. */

/** Platform ids (items, variants) are 64-bit on the platform: any positive safe integer. */
const NullableMoneyInput = Type.Unsafe<number | string | null>({
  type: ["number", "string"],
  nullable: true,
  description: "A decimal amount, as a JSON number or a decimal string, or null.",
  ...documentedRules({ pattern: DECIMAL_PATTERN }),
});
const Text = (maxLength = 255) => Type.Optional(Nullable(Type.String({ maxLength })));
const StringList = Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 250 })));
const Email = Type.String({ format: "email", maxLength: 254 });

export const SupplierSchema = Named(
  "Supplier",
  Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    company_name: Nullable(Type.String()),
    type: Nullable(Type.String()),
    contact_name: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    account_number: Nullable(Type.String()),
    payment_terms: Nullable(Type.String()),
    notes: Nullable(Type.String()),
    bill_to_address: Nullable(Type.String()),
    email: Nullable(Type.String()),
    email_cc: Type.Array(Type.String()),
    currency: Nullable(Type.String()),
    location_account_numbers: Type.Object({}, { additionalProperties: Type.String() }),
    lead_time_days: Nullable(Type.Integer()),
    min_order_value: Nullable(Money),
    free_freight_threshold: Nullable(Money),
    taxable: Type.Boolean(),
    ships_direct: Type.Boolean(),
    auto_restock: Type.Boolean(),
    exclude_from_reorder: Type.Boolean(),
    default_updates_stock: Nullable(Type.Boolean()),
    address: Type.Object({
      line1: Nullable(Type.String()),
      line2: Nullable(Type.String()),
      city: Nullable(Type.String()),
      province: Nullable(Type.String()),
      zip: Nullable(Type.String()),
      country: Nullable(Type.String()),
    }),
    match_vendors: Type.Array(Type.String()),
    match_tags: Type.Array(Type.String()),
    match_exclude_tags: Type.Array(Type.String()),
    dropship_tags: Type.Array(Type.String()),
    archived: Type.Boolean(),
    archived_at: Nullable(Timestamp),
    merged_into_id: Nullable(Type.Integer()),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);

const supplierInputFields = {
  company_name: Text(),
  type: Text(),
  contact_name: Text(),
  phone: Text(64),
  account_number: Text(),
  payment_terms: Text(),
  notes: Text(10_000),
  bill_to_address: Text(2_000),
  email: Type.Optional(Nullable(Email)),
  email_cc: Type.Optional(Nullable(Type.Array(Email, { maxItems: 50 }))),
  currency: Type.Optional(
    Nullable(
      Type.String({
        maxLength: 3,
        description: "ISO 4217 code, e.g. USD; an empty string clears it as null does.",
        ...documentedRules({ pattern: "^([A-Z]{3})?$" }),
      }),
    ),
  ),
  location_account_numbers: Type.Optional(
    Nullable(Type.Object({}, { additionalProperties: Type.String({ maxLength: 255 }), maxProperties: 1000 })),
  ),
  lead_time_days: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 3650 }))),
  min_order_value: Type.Optional(NullableMoneyInput),
  free_freight_threshold: Type.Optional(NullableMoneyInput),
  taxable: Type.Optional(Type.Boolean()),
  ships_direct: Type.Optional(Type.Boolean()),
  auto_restock: Type.Optional(Type.Boolean()),
  exclude_from_reorder: Type.Optional(Type.Boolean()),
  default_updates_stock: Type.Optional(Nullable(Type.Boolean())),
  address_line1: Text(),
  address_line2: Text(),
  city: Text(),
  province: Text(),
  zip: Text(32),
  country: Text(),
  match_vendors: StringList,
  match_tags: StringList,
  match_exclude_tags: StringList,
  dropship_tags: StringList,
};

export const SupplierCreateInput = Named(
  "SupplierInput",
  Type.Object(
    { name: Type.String({ maxLength: 255 }), ...supplierInputFields },
    { additionalProperties: false },
  ),
);
export const SupplierPatchInput = Named(
  "SupplierUpdate",
  Type.Object(
    { name: Type.Optional(Type.String({ maxLength: 255 })), ...supplierInputFields },
    { additionalProperties: false },
  ),
);

const PriceTierSet = Named(
  "SupplierPriceList",
  Type.Object({
    currency: Type.String(),
    effective_from: Nullable(DateString),
    source: RecordSource,
    tiers: Type.Array(Type.Object({ min_qty: Type.Integer(), price: Money })),
  }),
);

export const SupplierCatalogRowSchema = Named(
  "SupplierCatalogItem",
  Type.Object({
    inventory_item_id: Type.Integer(),
    supplier_sku: Nullable(Type.String()),
    pack_size: Type.Integer(),
    pack_unit: Type.String(),
    min_order_qty: Type.Integer(),
    is_primary: Type.Boolean(),
    source: RecordSource,
    price: Nullable(Money),
    price_currency: Nullable(Type.String()),
    price_list: Type.Object({ effective: Nullable(PriceTierSet), upcoming: Nullable(PriceTierSet) }),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);

export const CatalogRowInput = Named(
  "SupplierCatalogItemInput",
  Type.Object(
    {
      inventory_item_id: Type.Optional(PlatformId),
      variant_id: Type.Optional(PlatformId),
      supplier_sku: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
      pack_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
      pack_unit: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
      min_order_qty: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000 })),
      is_primary: Type.Optional(Type.Boolean()),
      tiers: Type.Optional(
        Type.Array(
          Type.Object(
            {
              min_qty: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }),
              price: Type.Unsafe<number | string>({
                type: ["number", "string"],
                description: "A decimal price (up to 8 places), as a JSON number or a decimal string.",
                ...documentedRules({ pattern: DECIMAL_PATTERN }),
              }),
            },
            { additionalProperties: false },
          ),
          { maxItems: 100 },
        ),
      ),
      effective_from: Type.Optional(DateString),
    },
    { additionalProperties: false },
  ),
);
