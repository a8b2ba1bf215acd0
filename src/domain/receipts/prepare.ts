/**
 * Everything a receipt reads and checks before anything is written, shared by the preview and the
 * real call: the lookups its unordered entries and location need, the order lines those entries
 * become, and what the receipt books (compute.ts) from the order as loaded under its lock.
 */
import Big from "big.js";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { DetailCollector } from "../errors.ts";
import type { AllocatableCharge, AllocationMethod } from "../landed-cost.ts";
import { localDate } from "../local-time.ts";
import {
  assertLineCap,
  checkNamedLocation,
  fetchLookups,
  type LineDraft,
  type LineRow,
  type OrderParts,
  type OrderRecord,
  resolveLines,
} from "../purchase-orders/index.ts";
import { type ComputedReceipt, computeReceipt, type ReceiptOrder, type UnorderedRequest } from "./compute.ts";
import { checkReceiptInput, receivedAtOf, unorderedLineInputs } from "./input.ts";
import { knownLocationName } from "./presented.ts";
import { findLocationName } from "./repository.ts";
import type { ReceiptBody, StoreRef } from "./types.ts";

export interface Prepared {
  order: OrderRecord;
  lines: LineRow[];
  computed: ComputedReceipt;
  /** New order lines for the `unordered` entries, positions after the last line. */
  newLines: LineDraft[];
  /** The receipt location's name (null when the location is unknown). */
  locationName: string | null;
  receivedAt: Date;
  invoiceTotal: string | null;
}

export async function prepare(
  ctx: AppContext,
  db: Db,
  store: StoreRef,
  order: OrderRecord,
  parts: OrderParts,
  body: ReceiptBody,
): Promise<Prepared> {
  const problems = new DetailCollector();
  const now = ctx.clock.now();
  const today = localDate(now, store.timezone);
  const unordered = body.unordered ?? [];
  const { lines } = parts;
  // Unordered entries become lines of the order.
  assertLineCap(lines.length + unordered.length, "unordered");
  const lookups = await fetchLookups(db, store.id, {
    supplierId: order.supplier_id,
    variantIds: unordered.flatMap((u) => (u.variant_id !== undefined ? [u.variant_id] : [])),
    itemIds: unordered.flatMap((u) => (u.inventory_item_id !== undefined ? [u.inventory_item_id] : [])),
    locationIds: [
      ...(body.location_id !== undefined ? [body.location_id] : []),
      ...unordered.flatMap((u) => (u.location_id != null ? [u.location_id] : [])),
    ],
    taxRateIds: [],
  });

  if (body.location_id !== undefined) checkNamedLocation(lookups, body.location_id, "location_id", problems);

  const lastPosition = lines.reduce((m, l) => Math.max(m, l.position), 0);
  const newLines = resolveLines(
    {
      currency: order.currency,
      storeCurrency: store.currency,
      exchangeRate: order.exchange_rate,
      today,
      lookups,
      path: "unordered",
      firstPosition: lastPosition + 1,
      problems,
    },
    unorderedLineInputs(unordered),
  ).map((draft) => ({ ...draft, received_quantity: draft.quantity, warnings: [] }));

  const input = checkReceiptInput(body, order.currency, problems);
  const unorderedRequests: UnorderedRequest[] = newLines.map((d) => ({
    quantity: d.quantity,
    unitCost: new Big(d.unit_cost),
    inventoryItemId: d.inventory_item_id,
    locationId: d.location_id,
  }));
  const computed = computeReceipt(
    receiptOrderOf(order, parts),
    {
      exchangeRate: input.exchangeRate,
      locationId: body.location_id ?? null,
      routeToDestinations: body.route_to_destinations ?? false,
      rejectedDisposition: body.rejected_disposition ?? "replace",
      lines: input.lines,
      unordered: unorderedRequests,
    },
    problems,
  );
  problems.throwIfAny();

  const receiptLocation = computed.locationId;
  const locationName =
    lookups.locations.get(receiptLocation)?.name ??
    knownLocationName(order, parts, receiptLocation) ??
    (await findLocationName(db, store.id, receiptLocation));
  const receivedAt = receivedAtOf(body.received_at, now, today, store.timezone);
  return { order, lines, computed, newLines, locationName, receivedAt, invoiceTotal: input.invoiceTotal };
}

/** The order as compute.ts sees it: its lines with what earlier receipts allocated, its charges. */
function receiptOrderOf(order: OrderRecord, parts: OrderParts): ReceiptOrder {
  const history = receiptHistory(parts);
  return {
    status: order.status,
    currency: order.currency,
    exchangeRate: new Big(order.exchange_rate),
    locationId: order.location_id,
    updatesStock: order.updates_stock,
    lines: parts.lines.map((l) => {
      const h = history.get(l.id);
      return {
        id: l.id,
        position: l.position,
        quantity: l.quantity,
        cancelled_quantity: l.cancelled_quantity,
        received_quantity: l.received_quantity,
        unit_cost: l.unit_cost,
        discount_percent: l.discount_percent,
        weight_grams: l.weight_grams,
        inventory_item_id: l.inventory_item_id,
        location_id: l.location_id,
        allocated: h?.allocated ?? new Big(0),
        unordered: h?.unordered ?? false,
      };
    }),
    charges: parts.charges.map(
      (c): AllocatableCharge => ({
        amountInOrderCurrency: new Big(c.amount_in_order_currency),
        method: c.allocation_method as AllocationMethod,
        customSplit:
          c.custom_split?.map((s) => ({ position: s.position, amount: new Big(s.amount) })) ?? null,
      }),
    ),
  };
}

/** Per order line: charges allocated by non-voided receipts, and whether a receipt added the line. */
function receiptHistory(parts: Pick<OrderParts, "receipts" | "receiptLines">) {
  const voided = new Set(parts.receipts.filter((r) => r.voided_at !== null).map((r) => r.id));
  const history = new Map<number, { allocated: Big; unordered: boolean }>();
  for (const rl of parts.receiptLines) {
    const entry = history.get(rl.line_id) ?? { allocated: new Big(0), unordered: false };
    if (!voided.has(rl.receipt_id)) entry.allocated = entry.allocated.plus(rl.allocated_charge_amount);
    entry.unordered ||= rl.unordered;
    history.set(rl.line_id, entry);
  }
  return history;
}
