import { html } from "../../html/template.ts";
import type { AdminError, ErrorDetail } from "../admin.ts";
import type { DraftState } from "../draft-order.ts";

/**
 * A refused save of the draft editor: the API's error details placed on the editor's fields, in the
 * user's words, once each.
 */

/** A refused save: the API's details placed on the editor's fields. */
export interface Problems {
  message: string;
  /** Field id → the message shown under it. */
  byField: Map<string, string>;
  /** The summary's lines: field id (to link to) and text in the user's words. */
  summary: { id: string | null; text: string }[];
}

const HEADER_FIELDS: Record<string, [string, string]> = {
  supplier_id: ["po-supplier", "Supplier"],
  location_id: ["po-location", "Ships to"],
  currency: ["po-currency", "Currency"],
  exchange_rate: ["po-rate", "Exchange rate"],
  expected_at: ["po-expected", "Expected on"],
  reference: ["po-reference", "Reference"],
  notes: ["po-notes", "Notes"],
  tax_rate_id: ["po-tax", "Tax"],
  taxes_included: ["po-taxes-included", "Prices include tax"],
  charges_taxable: ["po-charges-taxable", "Charges are taxed"],
};

/** A line's fields the API may refuse, with the editor's id and the words for them. */
const LINE_FIELDS: Record<string, [string, string]> = {
  quantity: ["line-qty", "quantity"],
  unit_cost: ["line-cost", "unit cost"],
  discount_percent: ["line-discount", "discount"],
  tax_rate_id: ["line-tax", "tax"],
  taxable: ["line-tax", "tax"],
};

export function problemsOf(error: AdminError, draft: DraftState, rowOfLine: number[]): Problems {
  const byField = new Map<string, string>();
  const summary: Problems["summary"] = [];
  const place = (id: string | null, label: string, message: string) => {
    if (id !== null && byField.has(id)) return;
    const text = `${label} ${message}`;
    if (id !== null) byField.set(id, text);
    summary.push({ id, text });
  };
  for (const d of error.details as ErrorDetail[]) {
    const [head, index, rest] = d.field.split(".");
    if (HEADER_FIELDS[head]) {
      place(HEADER_FIELDS[head][0], HEADER_FIELDS[head][1], d.message);
    } else if (head === "lines" && index !== undefined && /^\d+$/.test(index)) {
      const row = rowOfLine[Number(index)] ?? 0;
      const line = draft.lines[row];
      const [prefix, what] = LINE_FIELDS[rest] ?? LINE_FIELDS.quantity;
      place(`${prefix}-${row}`, `Line ${row + 1} (${line?.label ?? "item"}) ${what}`, d.message);
    } else if (head === "lines") {
      place(
        "item-q",
        "Lines:",
        d.message === "must NOT have fewer than 1 items" ? "add at least one item." : d.message,
      );
    } else if (head === "charges" && index !== undefined && /^\d+$/.test(index)) {
      place(`charge-amount-${index}`, `Charge ${Number(index) + 1}`, d.message);
    } else {
      place(null, "", d.message);
    }
  }
  if (summary.length === 0) summary.push({ id: null, text: error.message });
  return { message: "Nothing was saved. Please correct:", byField, summary };
}

export const invalid = (problems: Problems | null, id: string) =>
  problems?.byField.has(id) ? html` aria-invalid="true" aria-describedby="${id}-error"` : "";
export const errorUnder = (problems: Problems | null, id: string) =>
  problems?.byField.has(id)
    ? html`<p class="field-error" id="${id}-error">${problems.byField.get(id)}</p>`
    : "";
