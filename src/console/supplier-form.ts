import type { SupplierInput, SupplierView } from "../domain/suppliers/index.ts";
import { html, type SafeHtml } from "../html/template.ts";
import { AdminError } from "./admin.ts";
import { type FormBody, field, type PageContext, PageNotFound, idOf as pathId } from "./context.ts";
import { storePath } from "./layout.ts";
import { storeApi } from "./store-api.ts";
import { type FieldLabels, fieldError, formErrors, invalidAttrs } from "./store-pages.ts";

/**
 * The supplier form: every SupplierInput field (api-v2.md, Supplier), shown with a label in the user's
 * words, read back into the API's input. Lists are one entry per line; the per-location account numbers
 * are "location id = account number" lines.
 */

/**
 * The API's Supplier as the suppliers module presents it: one definition of its fields, so the form
 * and the API cannot drift apart.
 */
export type Supplier = SupplierView;

type Kind =
  | "text"
  | "email"
  | "textarea"
  | "list"
  | "integer"
  | "money"
  | "currency"
  | "boolean"
  | "tristate"
  | "accounts";

interface FieldSpec {
  /** A SupplierInput field (the address flat, as the API takes it). */
  name: keyof SupplierInput;
  label: string;
  kind: Kind;
  hint?: string;
}

const GROUPS = [
  {
    legend: "Supplier",
    fields: [
      { name: "name", label: "Name", kind: "text" },
      { name: "company_name", label: "Company name", kind: "text" },
      { name: "type", label: "Type", kind: "text", hint: "e.g. manufacturer, wholesaler" },
      { name: "currency", label: "Currency", kind: "currency", hint: "ISO code such as USD, any case" },
      { name: "account_number", label: "Our account number", kind: "text" },
      { name: "payment_terms", label: "Payment terms", kind: "text", hint: "e.g. Net 30" },
      { name: "lead_time_days", label: "Lead time (days)", kind: "integer" },
      { name: "min_order_value", label: "Minimum order value", kind: "money" },
      { name: "free_freight_threshold", label: "Free freight from", kind: "money" },
    ],
  },
  {
    legend: "Contact",
    fields: [
      { name: "contact_name", label: "Contact name", kind: "text" },
      { name: "email", label: "Email", kind: "email", hint: "purchase orders are sent here" },
      { name: "email_cc", label: "Copy to", kind: "list", hint: "one email address per line" },
      { name: "phone", label: "Phone", kind: "text" },
    ],
  },
  {
    legend: "Address",
    fields: [
      { name: "address_line1", label: "Street address", kind: "text" },
      { name: "address_line2", label: "Address line 2", kind: "text" },
      { name: "city", label: "City", kind: "text" },
      { name: "province", label: "State or province", kind: "text" },
      { name: "zip", label: "ZIP or postal code", kind: "text" },
      { name: "country", label: "Country", kind: "text" },
      {
        name: "bill_to_address",
        label: "Bill-to address",
        kind: "textarea",
        hint: "when it differs from the store's",
      },
    ],
  },
  {
    legend: "Ordering",
    fields: [
      { name: "taxable", label: "Charges tax", kind: "boolean" },
      { name: "ships_direct", label: "Ships directly to customers", kind: "boolean" },
      { name: "auto_restock", label: "Restock automatically", kind: "boolean" },
      { name: "exclude_from_reorder", label: "Leave out of reorder suggestions", kind: "boolean" },
      { name: "default_updates_stock", label: "Orders update stock", kind: "tristate" },
      {
        name: "location_account_numbers",
        label: "Account number per location",
        kind: "accounts",
        hint: "one per line: location id = account number",
      },
    ],
  },
  {
    legend: "Matching",
    fields: [
      { name: "match_vendors", label: "Vendors it supplies", kind: "list", hint: "one per line" },
      { name: "match_tags", label: "Product tags it supplies", kind: "list", hint: "one per line" },
      {
        name: "match_exclude_tags",
        label: "Product tags it never supplies",
        kind: "list",
        hint: "one per line",
      },
      { name: "dropship_tags", label: "Drop-ship tags", kind: "list", hint: "one per line" },
      { name: "notes", label: "Notes", kind: "textarea" },
    ],
  },
] as const satisfies readonly { legend: string; fields: readonly FieldSpec[] }[];

const FIELDS: readonly FieldSpec[] = GROUPS.flatMap((g): readonly FieldSpec[] => g.fields);

/** Fails to compile when SupplierInput gains a field the form does not show. */
type FormFieldName = (typeof GROUPS)[number]["fields"][number]["name"];
const everyInputField: Record<Exclude<keyof SupplierInput, FormFieldName>, never> = {};
void everyInputField;

/** The API's field names and their labels, for the error summary. */
export const SUPPLIER_LABELS: FieldLabels = Object.fromEntries(FIELDS.map((f) => [f.name, f.label]));

const idOf = (name: string) => `supplier-${name.replace(/_/g, "-")}`;

/** The form's values as text, from a supplier (edit) or nothing (new). */
export type SupplierFormValues = Record<string, string>;

export function valuesOf(s: Supplier | null): SupplierFormValues {
  if (!s) return { taxable: "true", default_updates_stock: "" };
  const a = s.address;
  const text = (v: string | number | boolean | null | undefined) =>
    v === null || v === undefined ? "" : String(v);
  return {
    name: s.name,
    company_name: text(s.company_name),
    type: text(s.type),
    currency: text(s.currency),
    account_number: text(s.account_number),
    payment_terms: text(s.payment_terms),
    lead_time_days: text(s.lead_time_days),
    min_order_value: text(s.min_order_value),
    free_freight_threshold: text(s.free_freight_threshold),
    contact_name: text(s.contact_name),
    email: text(s.email),
    email_cc: s.email_cc.join("\n"),
    phone: text(s.phone),
    address_line1: text(a?.line1),
    address_line2: text(a?.line2),
    city: text(a?.city),
    province: text(a?.province),
    zip: text(a?.zip),
    country: text(a?.country),
    bill_to_address: text(s.bill_to_address),
    taxable: String(s.taxable),
    ships_direct: String(s.ships_direct),
    auto_restock: String(s.auto_restock),
    exclude_from_reorder: String(s.exclude_from_reorder),
    default_updates_stock: text(s.default_updates_stock),
    location_account_numbers: Object.entries(s.location_account_numbers ?? {})
      .map(([k, v]) => `${k} = ${v}`)
      .join("\n"),
    match_vendors: s.match_vendors.join("\n"),
    match_tags: s.match_tags.join("\n"),
    match_exclude_tags: s.match_exclude_tags.join("\n"),
    dropship_tags: s.dropship_tags.join("\n"),
    notes: text(s.notes),
  };
}

/** The posted form's values as text (to show again after a refusal). */
export function postedValues(form: FormBody): SupplierFormValues {
  const values: SupplierFormValues = {};
  for (const f of FIELDS) {
    const raw = form[f.name];
    values[f.name] =
      f.kind === "boolean"
        ? raw === undefined
          ? "false"
          : "true"
        : Array.isArray(raw)
          ? raw[0]
          : (raw ?? "");
  }
  return values;
}

const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "");

/**
 * The API input: text as typed (an empty field is null, which the API stores as no value), lists by
 * line, numbers as typed so the API's own checks name a wrong one. The currency is upper-cased here: the
 * API takes upper case only (docs/decisions.md, issue 20 item 9).
 */
export function supplierInput(values: SupplierFormValues): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const f of FIELDS) {
    const raw = (values[f.name] ?? "").trim();
    switch (f.kind) {
      case "text":
      case "email":
      case "textarea":
        input[f.name] = f.name === "name" ? raw : raw === "" ? null : raw;
        break;
      case "currency":
        input[f.name] = raw === "" ? null : raw.toUpperCase();
        break;
      case "list":
        input[f.name] = lines(raw);
        break;
      case "integer":
        input[f.name] = raw === "" ? null : /^-?\d+$/.test(raw) ? Number(raw) : raw;
        break;
      case "money":
        input[f.name] = raw === "" ? null : raw.replace(/,/g, "");
        break;
      case "boolean":
        input[f.name] = raw === "true";
        break;
      case "tristate":
        input[f.name] = raw === "" ? null : raw === "true";
        break;
      case "accounts":
        input[f.name] = Object.fromEntries(
          lines(raw).map((l) => {
            const at = l.indexOf("=");
            return at < 0 ? [l, ""] : [l.slice(0, at).trim(), l.slice(at + 1).trim()];
          }),
        );
        break;
    }
  }
  return input;
}

function control(f: FieldSpec, value: string, error: AdminError | null): SafeHtml {
  const id = idOf(f.name);
  const attrs = invalidAttrs(error, f.name, id);
  const label = html`<label for="${id}">${f.label}${f.hint ? html` <span class="hint">(${f.hint})</span>` : ""}</label>`;
  const message = fieldError(error, f.name, id, f.label);
  switch (f.kind) {
    case "boolean":
      return html`<div class="check"><input type="checkbox" id="${id}" name="${f.name}" value="true"${value === "true" ? html` checked` : ""}${attrs}> ${label}${message}</div>`;
    case "tristate":
      return html`<div class="field">${label}<select id="${id}" name="${f.name}"${attrs}>
<option value=""${value === "" ? html` selected` : ""}>As the store decides</option>
<option value="true"${value === "true" ? html` selected` : ""}>Yes</option>
<option value="false"${value === "false" ? html` selected` : ""}>No</option>
</select>${message}</div>`;
    case "textarea":
    case "list":
    case "accounts":
      return html`<div class="field">${label}<textarea id="${id}" name="${f.name}" rows="3"${attrs}>${value}</textarea>${message}</div>`;
    default: {
      const type = f.kind === "email" ? "email" : "text";
      const extra =
        f.kind === "integer"
          ? html` inputmode="numeric"`
          : f.kind === "money"
            ? html` inputmode="decimal"`
            : f.kind === "currency"
              ? html` maxlength="3" autocapitalize="characters" class="short"`
              : "";
      const required = f.name === "name" ? html` required maxlength="255"` : "";
      return html`<div class="field">${label}<input type="${type}" id="${id}" name="${f.name}" value="${value}"${extra}${required}${attrs}>${message}</div>`;
    }
  }
}

export function supplierForm(options: {
  action: string;
  csrf: SafeHtml;
  values: SupplierFormValues;
  error: AdminError | null;
  submit: string;
  idempotencyKey?: string;
}): SafeHtml {
  const { values, error } = options;
  return html`${formErrors(error, SUPPLIER_LABELS, idOf)}
<form method="post" action="${options.action}" class="stack wide" aria-label="${options.submit}">
${options.csrf}
${options.idempotencyKey ? html`<input type="hidden" name="_key" value="${options.idempotencyKey}">` : ""}
${GROUPS.map(
  (g) =>
    html`<fieldset><legend>${g.legend}</legend><div class="grid">${g.fields.map((f) => control(f, values[f.name] ?? "", error))}</div></fieldset>`,
)}
<div><button type="submit">${options.submit}</button></div>
</form>`;
}

/** The form's hidden one-time key, if any. */
export function idempotencyKeyOf(form: FormBody): string | undefined {
  const key = field(form, "_key");
  return /^[0-9a-f-]{36}$/.test(key) ? key : undefined;
}

export const suppliersPath = (storeId: number, rest = "") => storePath(storeId, `/suppliers${rest}`);

/** The path's supplier, read as the user; another store's or a missing one is a 404 page. */
export async function loadSupplier(ctx: PageContext, rawId: unknown): Promise<Supplier> {
  const id = pathId(rawId);
  try {
    return (await storeApi(ctx.request).get<{ data: Supplier }>(`/suppliers/${id}`)).data;
  } catch (error) {
    if (error instanceof AdminError && error.status === 404)
      throw new PageNotFound("This store has no such supplier.");
    throw error;
  }
}
