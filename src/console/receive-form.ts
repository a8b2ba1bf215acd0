import { createHash } from "node:crypto";
import type { ErrorDetail } from "./admin.ts";
import { type FormBody, field } from "./context.ts";
import { lineLabel, type Order, type OrderLine } from "./purchase-order-data.ts";

/**
 * The receive form's values as the user typed them (kept as text, so a refused form comes back as it
 * was sent), the receipt body they stand for, the field problems the console finds before the API
 * sees them, and what one scan adds.
 *
 * Per line the form has: good units received against what is outstanding, surplus (units above it),
 * rejected units with a reason, and a unit cost for this delivery. `received + surplus` is the API's
 * `quantity`: the API itself counts everything above the outstanding quantity as surplus.
 */

export interface LineValues {
  received: string;
  surplus: string;
  rejected: string;
  reason: string;
  unitCost: string;
}

export interface ReceiveValues {
  lines: Map<number, LineValues>;
  locationId: string;
  route: boolean;
  disposition: "replace" | "remove";
  invoiceReference: string;
  note: string;
}

/** The form's field names of one line (the line's id keeps them apart). */
export const lineField = {
  received: (id: number) => `received_${id}`,
  surplus: (id: number) => `surplus_${id}`,
  rejected: (id: number) => `rejected_${id}`,
  reason: (id: number) => `reason_${id}`,
  unitCost: (id: number) => `unit_cost_${id}`,
};

const LINE_WORDS: Record<keyof LineValues, string> = {
  received: "Received",
  surplus: "Surplus",
  rejected: "Rejected",
  reason: "Reason",
  unitCost: "Unit cost",
};

/** An empty form: nothing received yet, the order's location. */
export function emptyValues(order: Order): ReceiveValues {
  return {
    lines: new Map(
      order.lines.map((l) => [l.id, { received: "", surplus: "", rejected: "", reason: "", unitCost: "" }]),
    ),
    locationId: order.location ? String(order.location.id) : "",
    route: false,
    disposition: "replace",
    invoiceReference: "",
    note: "",
  };
}

export function postedValues(order: Order, form: FormBody): ReceiveValues {
  return {
    lines: new Map(
      order.lines.map((l) => [
        l.id,
        {
          received: field(form, lineField.received(l.id)),
          surplus: field(form, lineField.surplus(l.id)),
          rejected: field(form, lineField.rejected(l.id)),
          reason: field(form, lineField.reason(l.id)),
          unitCost: field(form, lineField.unitCost(l.id)),
        },
      ]),
    ),
    locationId: field(form, "location_id"),
    route: field(form, "route_to_destinations") === "yes",
    disposition: field(form, "rejected_disposition") === "remove" ? "remove" : "replace",
    invoiceReference: field(form, "invoice_reference"),
    note: field(form, "note"),
  };
}

/** A problem on one form field, in the user's words, with the id of the input it belongs to. */
export interface FieldProblem {
  name: string;
  message: string;
  /** What the field itself says under it, where the row already names the item. */
  short?: string;
}

const units = (text: string) => (text === "" ? 0 : /^\d{1,9}$/.test(text) ? Number(text) : Number.NaN);

export interface ReceiptBody {
  location_id?: number;
  route_to_destinations?: boolean;
  rejected_disposition: "replace" | "remove";
  invoice_reference?: string;
  note?: string;
  lines: {
    line_id: number;
    quantity: number;
    rejected?: { quantity: number; reason: string | null }[];
    unit_cost?: string;
  }[];
}

/**
 * The receipt body of the form, or the problems found before asking the API: counts that are not
 * whole numbers, surplus on a line that still has outstanding units left unreceived, a reason with
 * nothing rejected. `bodyLines[i]` is the order line of the body's `lines[i]`, to name the API's
 * `lines.<i>.…` problems on the right row.
 */
export function receiptBody(
  order: Order,
  values: ReceiveValues,
): { body: ReceiptBody; bodyLines: OrderLine[]; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const body: ReceiptBody = { rejected_disposition: values.disposition, lines: [] };
  const bodyLines: OrderLine[] = [];
  for (const line of order.lines) {
    const v = values.lines.get(line.id);
    if (!v) continue;
    const label = lineLabel(line);
    const counts = { received: units(v.received), surplus: units(v.surplus), rejected: units(v.rejected) };
    for (const key of ["received", "surplus", "rejected"] as const) {
      if (Number.isNaN(counts[key]))
        problems.push({
          name: lineField[key](line.id),
          message: `${LINE_WORDS[key]} of ${label} must be a whole number of 0 or more.`,
          short: `${LINE_WORDS[key]} must be a whole number of 0 or more.`,
        });
    }
    if (counts.surplus > 0 && counts.received < line.outstanding_quantity)
      problems.push({
        name: lineField.surplus(line.id),
        message: `Surplus of ${label} counts only units above the ${line.outstanding_quantity} outstanding: receive those first.`,
        short: `Surplus counts only units above the ${line.outstanding_quantity} outstanding: receive those first.`,
      });
    if (v.reason !== "" && counts.rejected === 0)
      problems.push({
        name: lineField.reason(line.id),
        message: `Reason of ${label} needs a rejected quantity.`,
        short: "Reason needs a rejected quantity.",
      });
    const quantity = counts.received + counts.surplus;
    if (!(quantity > 0 || counts.rejected > 0) || Number.isNaN(quantity + counts.rejected)) continue;
    bodyLines.push(line);
    body.lines.push({
      line_id: line.id,
      quantity,
      ...(counts.rejected > 0 && {
        rejected: [{ quantity: counts.rejected, reason: v.reason === "" ? null : v.reason }],
      }),
      ...(v.unitCost !== "" && { unit_cost: v.unitCost }),
    });
  }
  if (values.locationId !== "") {
    if (/^\d{1,16}$/.test(values.locationId)) body.location_id = Number(values.locationId);
    else problems.push({ name: "location_id", message: "Receive into must be one of the locations listed." });
  }
  if (values.route) body.route_to_destinations = true;
  if (values.invoiceReference !== "") body.invoice_reference = values.invoiceReference;
  if (values.note !== "") body.note = values.note;
  return { body, bodyLines, problems };
}

/** The API's refusal of a receipt as problems on the form's fields, each named in the user's words. */
export function apiProblems(
  details: readonly ErrorDetail[],
  bodyLines: readonly OrderLine[],
): FieldProblem[] {
  return details.map((d) => {
    const match = /^lines\.(\d+)\.([a-z_]+)/.exec(d.field);
    const line = match ? bodyLines[Number(match[1])] : undefined;
    if (match && line) {
      const key = match[2] === "unit_cost" ? "unitCost" : match[2] === "rejected" ? "rejected" : "received";
      return {
        name: lineField[key](line.id),
        message: `${LINE_WORDS[key]} of ${lineLabel(line)} ${d.message}.`,
        short: `${LINE_WORDS[key]} ${d.message}.`,
      };
    }
    if (d.field === "location_id") return { name: "location_id", message: `Receive into ${d.message}.` };
    if (d.field === "lines" && d.code === "nothing_received")
      return { name: "", message: "Enter at least one unit received or rejected." };
    if (d.field === "invoice_reference")
      return { name: "invoice_reference", message: `Invoice reference ${d.message}.` };
    if (d.field === "note") return { name: "note", message: `Note ${d.message}.` };
    return { name: "", message: `${d.field} ${d.message}.` };
  });
}

/**
 * What a preview stood for, so booking books what was previewed: a form changed after its preview is
 * previewed again instead of booked.
 */
export function bodyDigest(body: ReceiptBody): string {
  return createHash("sha256").update(JSON.stringify(body)).digest("hex").slice(0, 32);
}

/**
 * One scan (a scanner types the code and Enter): one more unit on the line whose SKU, barcode or
 * supplier SKU is the code, into Received until the outstanding units are in, then into Surplus.
 * Unknown codes change nothing.
 */
export function applyScan(
  order: Order,
  values: ReceiveValues,
  code: string,
): { ok: true; message: string } | { ok: false; message: string } {
  const wanted = code.trim().toLowerCase();
  const matching = order.lines.filter((l) =>
    [l.sku, l.barcode, l.supplier_sku].some((c) => c !== null && c.trim().toLowerCase() === wanted),
  );
  if (wanted === "" || matching.length === 0)
    return {
      ok: false,
      message: `No line of ${order.number} has the SKU or barcode “${code.trim()}”. Nothing was added.`,
    };
  const count = (line: OrderLine) => {
    const v = values.lines.get(line.id);
    return units(v?.received ?? "") || 0;
  };
  const line = matching.find((l) => count(l) < l.outstanding_quantity) ?? matching[0];
  const v = values.lines.get(line.id);
  if (!v) return { ok: false, message: "That line cannot be received." };
  const received = count(line);
  if (received < line.outstanding_quantity) {
    v.received = String(received + 1);
    return { ok: true, message: `Scanned ${lineLabel(line)}: ${received + 1} received.` };
  }
  const surplus = (units(v.surplus) || 0) + 1;
  v.surplus = String(surplus);
  return { ok: true, message: `Scanned ${lineLabel(line)}: ${surplus} surplus.` };
}
