import Big from "big.js";
import type { DetailCollector } from "../errors.ts";
import { isKnownCurrency, minorUnits, parseDecimalInput } from "../money.ts";
import type { SupplierRow } from "./presenter.ts";
import type { SupplierUpdate } from "./repository.ts";

/**
 * SupplierInput of the contract (create and PATCH), address written flat, and how it becomes column
 * values: the rules every supplier write (create, PATCH, merge) shares.
 */
export interface SupplierInput {
  name?: string;
  company_name?: string | null;
  type?: string | null;
  contact_name?: string | null;
  phone?: string | null;
  account_number?: string | null;
  payment_terms?: string | null;
  notes?: string | null;
  bill_to_address?: string | null;
  email?: string | null;
  email_cc?: string[] | null;
  currency?: string | null;
  location_account_numbers?: Record<string, string> | null;
  lead_time_days?: number | null;
  min_order_value?: number | string | null;
  free_freight_threshold?: number | string | null;
  taxable?: boolean;
  ships_direct?: boolean;
  auto_restock?: boolean;
  exclude_from_reorder?: boolean;
  default_updates_stock?: boolean | null;
  address_line1?: string | null;
  address_line2?: string | null;
  city?: string | null;
  province?: string | null;
  zip?: string | null;
  country?: string | null;
  match_vendors?: string[] | null;
  match_tags?: string[] | null;
  match_exclude_tags?: string[] | null;
  dropship_tags?: string[] | null;
}

// SupplierInput's columns by kind, one list each, shared by reading input (below), a merge's fill
// (`merge.ts`) and `GET /v2/suppliers/{id}`'s prepared select (`queries.ts`).

/** Contact and account text (everything textual but the name and the address). */
export const CONTACT_FIELDS = [
  "company_name",
  "type",
  "contact_name",
  "phone",
  "account_number",
  "payment_terms",
  "notes",
  "bill_to_address",
  "email",
] as const;
export const ADDRESS_FIELDS = [
  "address_line1",
  "address_line2",
  "city",
  "province",
  "zip",
  "country",
] as const;
const TEXT_FIELDS = [...CONTACT_FIELDS, ...ADDRESS_FIELDS] as const;
export const LIST_FIELDS = [
  "email_cc",
  "match_vendors",
  "match_tags",
  "match_exclude_tags",
  "dropship_tags",
] as const;
export const BOOLEAN_FIELDS = ["taxable", "ships_direct", "auto_restock", "exclude_from_reorder"] as const;
export const MONEY_FIELDS = ["min_order_value", "free_freight_threshold"] as const;
/** Supplier money columns are numeric(20, 8): at most 12 integer digits. */
export const MONEY_LIMIT = new Big("1e12");

/** Changed columns, as domain values (arrays and objects, not yet JSON text). */
export type SupplierChanges = Partial<Record<keyof SupplierRow, unknown>>;

/**
 * Reads a SupplierInput into column values. Empty strings in nullable text fields are stored as null;
 * null lists become [] and a null `location_account_numbers` becomes {}. Money must have no more
 * places than the supplier's currency has minor units (two when it has none).
 */
export function supplierChanges(
  input: SupplierInput,
  currentCurrency: string | null,
  problems: DetailCollector,
): SupplierChanges {
  const changes: SupplierChanges = {};
  if (input.name !== undefined) {
    if (input.name.trim() === "") problems.add("name", "blank", "must not be blank");
    else changes.name = input.name;
  }
  for (const field of TEXT_FIELDS) {
    const value = input[field];
    if (value !== undefined) changes[field] = value === "" ? null : value;
  }
  for (const field of LIST_FIELDS) {
    const value = input[field];
    if (value !== undefined) changes[field] = value ?? [];
  }
  for (const field of BOOLEAN_FIELDS) {
    const value = input[field];
    if (value !== undefined) changes[field] = value;
  }
  if (input.default_updates_stock !== undefined) changes.default_updates_stock = input.default_updates_stock;
  if (input.lead_time_days !== undefined) changes.lead_time_days = input.lead_time_days;
  if (input.location_account_numbers !== undefined)
    changes.location_account_numbers = input.location_account_numbers ?? {};

  let currency = currentCurrency;
  if (input.currency !== undefined) {
    if (input.currency === null || input.currency === "") {
      changes.currency = null;
      currency = null;
    } else if (!isKnownCurrency(input.currency)) {
      problems.add("currency", "invalid_value", "must be an ISO 4217 currency code such as USD");
      currency = null;
    } else {
      changes.currency = input.currency;
      currency = input.currency;
    }
  }
  const places = currency ? minorUnits(currency) : 2;
  for (const field of MONEY_FIELDS) {
    const value = input[field];
    if (value === undefined) continue;
    if (value === null) {
      changes[field] = null;
      continue;
    }
    const parsed = parseDecimalInput(value, { maxPlaces: places });
    if (!parsed.ok) problems.add(field, parsed.code, parsed.message);
    else if (parsed.value.gte(MONEY_LIMIT)) problems.add(field, "out_of_range", "is too large");
    else changes[field] = parsed.value.toFixed();
  }
  return changes;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export function sameValue(field: string, before: unknown, after: unknown): boolean {
  if (before === null || after === null || before === undefined || after === undefined)
    return (before ?? null) === (after ?? null);
  if ((MONEY_FIELDS as readonly string[]).includes(field))
    return new Big(before as string).eq(new Big(after as string));
  return stableJson(before) === stableJson(after);
}

export function toColumns(changes: SupplierChanges): SupplierUpdate {
  const set: Record<string, unknown> = { ...changes };
  if (set.location_account_numbers !== undefined)
    set.location_account_numbers = JSON.stringify(set.location_account_numbers);
  return set as SupplierUpdate;
}
