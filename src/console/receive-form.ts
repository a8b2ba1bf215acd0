import { createHash } from "node:crypto";
import type { ErrorDetail } from "./admin.ts";
import { type FormBody, field } from "./context.ts";
import { lineLabel, type Order, type OrderLine } from "./purchase-order-data.ts";

/**
 * The receive form's values as the user typed them (kept as text, so a refused form comes back as it
 * was sent), the receipts they stand for, the field problems the console finds before the API sees
 * them, and what one scan adds.
 *
 * Per line the form has: good units received against what is outstanding, surplus (units above it),
 * rejected units with a reason, a unit cost for this delivery, a lot number and expiry, and the
 * location the units go into. `received + surplus` is the API's `quantity`: the API itself counts
 * everything above the outstanding quantity as surplus. Items the supplier sent that are not on the
 * order are rows of their own (the API's `unordered`).
 *
 * A receipt has one location (lines with a destination of their own on the order aside), so a
 * delivery whose lines go to several locations is booked as one receipt per location.
 */

export interface LineValues {
  received: string;
  surplus: string;
  rejected: string;
  reason: string;
  unitCost: string;
  lot: string;
  expiry: string;
  /** A location id, or "" for the delivery's "Receive into". */
  destination: string;
}

/** An item not on the order: the text typed (or scanned), the variant chosen among several matches. */
export interface ExtraValues {
  item: string;
  chosen: string;
  quantity: string;
  unitCost: string;
  destination: string;
}

export interface ReceiveValues {
  lines: Map<number, LineValues>;
  extras: ExtraValues[];
  locationId: string;
  receivedOn: string;
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
  lot: (id: number) => `lot_${id}`,
  expiry: (id: number) => `expiry_${id}`,
  destination: (id: number) => `destination_${id}`,
};

/** The field names of the n-th item not on the order (the item's choice is `${item}_variant`). */
export const extraField = {
  item: (n: number) => `extra_item_${n}`,
  quantity: (n: number) => `extra_quantity_${n}`,
  unitCost: (n: number) => `extra_unit_cost_${n}`,
  destination: (n: number) => `extra_destination_${n}`,
};

/** At most this many items not on the order in one delivery form (the API takes 200 a receipt). */
export const MAX_EXTRAS = 20;

const LINE_WORDS: Record<Exclude<keyof LineValues, "destination">, string> = {
  received: "Received",
  surplus: "Surplus",
  rejected: "Rejected",
  reason: "Reason",
  unitCost: "Unit cost",
  lot: "Lot",
  expiry: "Expiry",
};

const emptyLine = (line: OrderLine): LineValues => ({
  received: "",
  surplus: "",
  rejected: "",
  reason: "",
  unitCost: "",
  lot: "",
  expiry: "",
  destination: line.location_id !== null ? String(line.location_id) : "",
});

/** An empty form: nothing received yet, the order's location, each line to its own destination. */
export function emptyValues(order: Order): ReceiveValues {
  return {
    lines: new Map(order.lines.map((l) => [l.id, emptyLine(l)])),
    extras: [],
    locationId: order.location ? String(order.location.id) : "",
    receivedOn: "",
    disposition: "replace",
    invoiceReference: "",
    note: "",
  };
}

export function postedValues(order: Order, form: FormBody): ReceiveValues {
  const extras: ExtraValues[] = [];
  for (let n = 0; n < MAX_EXTRAS; n++) {
    const extra = {
      item: field(form, extraField.item(n)),
      chosen: field(form, `${extraField.item(n)}_variant`),
      quantity: field(form, extraField.quantity(n)),
      unitCost: field(form, extraField.unitCost(n)),
      destination: field(form, extraField.destination(n)),
    };
    // A row left empty is no row (the form always offers one more).
    if (extra.item.trim() !== "" || extra.quantity !== "" || extra.unitCost !== "") extras.push(extra);
  }
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
          lot: field(form, lineField.lot(l.id)),
          expiry: field(form, lineField.expiry(l.id)),
          destination: field(form, lineField.destination(l.id)),
        },
      ]),
    ),
    extras,
    locationId: field(form, "location_id"),
    receivedOn: field(form, "received_on"),
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
const isDate = (text: string) => /^\d{4}-\d{2}-\d{2}$/.test(text);
const isId = (text: string) => /^[1-9]\d{0,15}$/.test(text);

export interface ReceiptBody {
  location_id?: number;
  received_at?: string;
  rejected_disposition: "replace" | "remove";
  invoice_reference?: string;
  note?: string;
  lines: {
    line_id: number;
    quantity: number;
    rejected?: { quantity: number; reason: string | null }[];
    unit_cost?: string;
    lot_number?: string;
    lot_expiry?: string;
  }[];
  unordered?: { variant_id: number; quantity: number; unit_cost?: string }[];
}

/** An item not on the order as the picker resolved it: its row in the form, its variant and name. */
export interface ResolvedExtra {
  row: number;
  variantId: number;
  label: string;
}

/**
 * One receipt of the delivery: where it goes, its body, the order line of each of its `lines[i]` and
 * the form row of each of its `unordered[i]` (to name the API's problems on the right field).
 */
export interface PlannedReceipt {
  /** The location id as the form has it; "" is the order's location (the API's default). */
  location: string;
  body: ReceiptBody;
  bodyLines: OrderLine[];
  extraRows: ResolvedExtra[];
}

/**
 * The receipts the form stands for (one per location the units go into, in the order the lines come),
 * or the problems found before asking the API: counts that are not whole numbers, surplus on a line
 * that still has outstanding units left unreceived, a reason with nothing rejected, an item not on the
 * order without a quantity.
 */
export function plannedReceipts(
  order: Order,
  values: ReceiveValues,
  extras: readonly ResolvedExtra[],
): { receipts: PlannedReceipt[]; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const byLocation = new Map<string, PlannedReceipt>();
  const receiptAt = (destination: string): PlannedReceipt | null => {
    const location = destination !== "" ? destination : values.locationId;
    if (location !== "" && !isId(location)) return null;
    let receipt = byLocation.get(location);
    if (!receipt) {
      receipt = {
        location,
        body: { rejected_disposition: values.disposition, lines: [] },
        bodyLines: [],
        extraRows: [],
      };
      byLocation.set(location, receipt);
    }
    return receipt;
  };
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
    if (v.expiry !== "" && !isDate(v.expiry))
      problems.push({
        name: lineField.expiry(line.id),
        message: `Expiry of ${label} must be a date (year-month-day).`,
        short: "Expiry must be a date (year-month-day).",
      });
    const quantity = counts.received + counts.surplus;
    if (!(quantity > 0 || counts.rejected > 0) || Number.isNaN(quantity + counts.rejected)) continue;
    const receipt = receiptAt(v.destination);
    if (!receipt) {
      problems.push({
        name: lineField.destination(line.id),
        message: `Destination of ${label} must be one of the locations listed.`,
        short: "Destination must be one of the locations listed.",
      });
      continue;
    }
    receipt.bodyLines.push(line);
    receipt.body.lines.push({
      line_id: line.id,
      quantity,
      ...(counts.rejected > 0 && {
        rejected: [{ quantity: counts.rejected, reason: v.reason === "" ? null : v.reason }],
      }),
      ...(v.unitCost !== "" && { unit_cost: v.unitCost }),
      ...(v.lot.trim() !== "" && { lot_number: v.lot.trim() }),
      ...(v.expiry !== "" && isDate(v.expiry) && { lot_expiry: v.expiry }),
    });
  }
  for (const extra of extras) {
    const v = values.extras[extra.row];
    const quantity = units(v.quantity);
    if (!(quantity > 0)) {
      problems.push({
        name: extraField.quantity(extra.row),
        message: `Quantity of ${extra.label} (not on the order) must be a whole number of 1 or more.`,
        short: "Quantity must be a whole number of 1 or more.",
      });
      continue;
    }
    const receipt = receiptAt(v.destination);
    if (!receipt) {
      problems.push({
        name: extraField.destination(extra.row),
        message: `Destination of ${extra.label} must be one of the locations listed.`,
      });
      continue;
    }
    receipt.extraRows.push(extra);
    receipt.body.unordered = [
      ...(receipt.body.unordered ?? []),
      { variant_id: extra.variantId, quantity, ...(v.unitCost !== "" && { unit_cost: v.unitCost }) },
    ];
  }
  if (values.locationId !== "" && !isId(values.locationId))
    problems.push({ name: "location_id", message: "Receive into must be one of the locations listed." });
  if (values.receivedOn !== "" && !isDate(values.receivedOn))
    problems.push({ name: "received_on", message: "Received on must be a date (year-month-day)." });
  const receipts = [...byLocation.values()];
  for (const receipt of receipts) {
    if (receipt.location !== "") receipt.body.location_id = Number(receipt.location);
    if (values.receivedOn !== "" && isDate(values.receivedOn)) receipt.body.received_at = values.receivedOn;
    if (values.invoiceReference !== "") receipt.body.invoice_reference = values.invoiceReference;
    if (values.note !== "") receipt.body.note = values.note;
  }
  return { receipts, problems };
}

/**
 * The Idempotency-Key of each receipt: the form's own for a delivery into one location; with several,
 * the form's key and the location, so a double click or a reload books each once.
 */
export function receiptKey(
  formKey: string,
  receipts: readonly PlannedReceipt[],
  receipt: PlannedReceipt,
): string {
  return receipts.length === 1 ? formKey : `${formKey}:${receipt.location || "order"}`;
}

/** The API's refusal of a receipt as problems on the form's fields, each named in the user's words. */
export function apiProblems(details: readonly ErrorDetail[], receipt: PlannedReceipt): FieldProblem[] {
  return details.map((d) => {
    const match = /^lines\.(\d+)\.([a-z_]+)/.exec(d.field);
    const line = match ? receipt.bodyLines[Number(match[1])] : undefined;
    if (match && line) {
      const key =
        match[2] === "unit_cost"
          ? "unitCost"
          : match[2] === "rejected"
            ? "rejected"
            : match[2] === "lot_number"
              ? "lot"
              : match[2] === "lot_expiry"
                ? "expiry"
                : "received";
      return {
        name: lineField[key](line.id),
        message: `${LINE_WORDS[key]} of ${lineLabel(line)} ${d.message}.`,
        short: `${LINE_WORDS[key]} ${d.message}.`,
      };
    }
    const extraMatch = /^unordered\.(\d+)\.([a-z_]+)/.exec(d.field);
    const extra = extraMatch ? receipt.extraRows[Number(extraMatch[1])] : undefined;
    if (extraMatch && extra) {
      const [name, word] =
        extraMatch[2] === "unit_cost"
          ? [extraField.unitCost(extra.row), "Unit cost"]
          : extraMatch[2] === "quantity"
            ? [extraField.quantity(extra.row), "Quantity"]
            : [extraField.item(extra.row), "Item"];
      return {
        name,
        message: `${word} of ${extra.label} (not on the order) ${d.message}.`,
        short: `${word} ${d.message}.`,
      };
    }
    if (d.field === "location_id") return { name: "location_id", message: `Receive into ${d.message}.` };
    if (d.field === "received_at") return { name: "received_on", message: `Received on ${d.message}.` };
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
export function bodyDigest(receipts: readonly PlannedReceipt[]): string {
  return createHash("sha256")
    .update(JSON.stringify(receipts.map((r) => r.body)))
    .digest("hex")
    .slice(0, 32);
}

/**
 * The order's status once every planned receipt is booked (the API's rule: received when nothing is
 * outstanding, partly received once anything good arrived, else as it was), for a delivery booked as
 * several receipts, whose previews each see only their own part.
 */
export function statusAfter(order: Order, receipts: readonly PlannedReceipt[]): string {
  let good = 0;
  const left = new Map(order.lines.map((l) => [l.id, l.outstanding_quantity]));
  for (const receipt of receipts) {
    for (const entry of receipt.body.lines) {
      const outstanding = left.get(entry.line_id) ?? 0;
      const afterGood = Math.max(0, outstanding - entry.quantity);
      const rejected = (entry.rejected ?? []).reduce((s, r) => s + r.quantity, 0);
      left.set(
        entry.line_id,
        receipt.body.rejected_disposition === "remove" ? Math.max(0, afterGood - rejected) : afterGood,
      );
      good += entry.quantity;
    }
    good += (receipt.body.unordered ?? []).reduce((s, u) => s + u.quantity, 0);
  }
  if ([...left.values()].every((n) => n === 0)) return "received";
  return good > 0 ? "partial" : order.status;
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
