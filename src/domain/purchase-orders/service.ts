/**
 * Purchase order rules: create, PATCH by state, delete, and every lifecycle call. Each function runs
 * inside the caller's transaction (sendWrite) and writes the change, its history row, its event and
 * its incoming stock movements there.
 */
import Big from "big.js";
import { sql, type Updateable } from "kysely";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import type { PurchaseOrdersTable } from "../../db/tables/purchase_orders.ts";
import { emit } from "../../events/outbox.ts";
import { DetailCollector, invalidTransition, notFound } from "../errors.ts";
import { formatMoney, isKnownCurrency, parseDecimalInput } from "../money.ts";
import { localDate } from "../suppliers/pricing.ts";
import {
  type ChargeDraft,
  type ChargeInput,
  orderExchangeRate,
  resolveCharges,
  storeRates,
} from "./charges.ts";
import {
  fetchLookups,
  type LineDraft,
  type LineInput,
  type Lookups,
  lineRowOf,
  referencesOf,
  resolveLines,
} from "./lines.ts";
import { refreshPaymentStatus } from "./payment-status.ts";
import type { ChargeRow, LineRow, OrderRow, PurchaseOrder } from "./presenter.ts";
import {
  type Actor,
  addHistory,
  formatOrderNumber,
  type HistoryType,
  loadPurchaseOrder,
  lockPurchaseOrder,
  nextSequentialIds,
  orderCharges,
  orderLines,
  takeOrderNumbers,
} from "./repository.ts";
import { incomingOf, pushIncomingChange } from "./stock.ts";
import { computeMoney, type MoneySettings } from "./totals.ts";
import {
  assertCan,
  isOpen,
  outstandingOf,
  type PurchaseOrderStatus,
  patchRefusal,
  refusedPatchField,
  resolveTarget,
  statusAfterCancel,
} from "./transitions.ts";

export interface StoreInfo {
  id: number;
  currency: string;
  timezone: string;
}

export interface OrderInput {
  supplier_id?: number;
  number?: string | null;
  currency?: string | null;
  type?: "purchase" | "return";
  return_reason?: string | null;
  return_source_po_id?: number | null;
  location_id?: number | null;
  tax_rate_id?: number | null;
  taxes_included?: boolean;
  charges_taxable?: boolean;
  reference?: string | null;
  customer_order_number?: string | null;
  supplier_order_number?: string | null;
  invoice_number?: string | null;
  account_number?: string | null;
  notes?: string | null;
  expected_at?: string | null;
  payment_due_on?: string | null;
  ship_to_override?: string | null;
  bill_to_override?: string | null;
  ships_to_customer?: boolean;
  updates_stock?: boolean;
  /** Additive (decisions §11): sets the order's exchange rate with source `manual`; null reverts. */
  exchange_rate?: number | string | null;
  lines?: LineInput[];
  charges?: ChargeInput[];
}

interface Call {
  ctx: AppContext;
  trx: Db;
  store: StoreInfo;
  actor: Actor;
}

const EVENT_SUBJECT = "purchase_order";

async function emitOrder(call: Call, name: string, order: PurchaseOrder, extra?: Record<string, unknown>) {
  await emit(call.ctx, call.trx, {
    storeId: call.store.id,
    name,
    subjectType: EVENT_SUBJECT,
    subjectId: order.id,
    data: order,
    extra,
  });
}

async function history(
  call: Call,
  orderId: number,
  type: HistoryType,
  data: Record<string, unknown>,
  at: Date,
) {
  await addHistory(call.trx, {
    storeId: call.store.id,
    orderId,
    type,
    by: call.actor.by,
    via: call.actor.via,
    data,
    at,
  });
}

/** Order columns the API sets directly from input fields of the same name. */
const PLAIN_FIELDS = [
  "return_reason",
  "return_source_po_id",
  "taxes_included",
  "charges_taxable",
  "reference",
  "customer_order_number",
  "supplier_order_number",
  "invoice_number",
  "account_number",
  "notes",
  "expected_at",
  "payment_due_on",
  "ship_to_override",
  "bill_to_override",
  "ships_to_customer",
  "updates_stock",
  "type",
] as const;

/** The order's stored fields (what create writes and PATCH changes). */
interface OrderFields extends MoneySettings {
  supplier_id: number;
  number: string | null;
  type: "purchase" | "return";
  return_reason: string | null;
  return_source_po_id: number | null;
  location_id: number;
  tax_rate_name: string | null;
  reference: string | null;
  customer_order_number: string | null;
  supplier_order_number: string | null;
  invoice_number: string | null;
  account_number: string | null;
  notes: string | null;
  expected_at: string | null;
  payment_due_on: string | null;
  ship_to_override: string | null;
  bill_to_override: string | null;
  ships_to_customer: boolean;
  updates_stock: boolean;
  exchange_rate: string;
  exchange_rate_base_currency: string;
  exchange_rate_date: string;
  exchange_rate_source: "identity" | "store_rates" | "manual";
}

const HISTORY_FIELDS: (keyof OrderFields)[] = [
  "supplier_id",
  "number",
  "currency",
  "type",
  "return_reason",
  "return_source_po_id",
  "location_id",
  "tax_rate_id",
  "taxes_included",
  "charges_taxable",
  "reference",
  "customer_order_number",
  "supplier_order_number",
  "invoice_number",
  "account_number",
  "notes",
  "expected_at",
  "payment_due_on",
  "ship_to_override",
  "bill_to_override",
  "ships_to_customer",
  "updates_stock",
  "exchange_rate",
];

interface SupplierRef {
  id: number;
  currency: string | null;
  default_updates_stock: boolean | null;
}

async function supplierFor(
  call: Call,
  supplierId: number,
  problems: DetailCollector,
): Promise<SupplierRef | null> {
  const row = await call.trx
    .selectFrom("suppliers")
    .select(["id", "currency", "default_updates_stock", "archived"])
    .where("store_id", "=", call.store.id)
    .where("id", "=", supplierId)
    .executeTakeFirst();
  if (!row) {
    problems.add("supplier_id", "not_found", "is not a supplier of this store");
    return null;
  }
  if (row.archived) {
    problems.add(
      "supplier_id",
      "archived",
      "is archived (unarchive it, or use the supplier it was merged into)",
    );
    return null;
  }
  return row;
}

async function defaultLocation(trx: Db, storeId: number): Promise<{ id: number; name: string } | null> {
  const row = await trx
    .selectFrom("locations")
    .select(["id", "name"])
    .where("store_id", "=", storeId)
    .where("active", "=", true)
    .where("hidden", "=", false)
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
  return row ? { id: Number(row.id), name: row.name } : null;
}

function parseManualRate(
  value: number | string | null | undefined,
  problems: DetailCollector,
): string | null {
  if (value === undefined || value === null) return null;
  const parsed = parseDecimalInput(value, { maxPlaces: 12, allowZero: false });
  if (!parsed.ok) {
    problems.add("exchange_rate", parsed.code, parsed.message);
    return null;
  }
  return parsed.value.toString();
}

interface Prepared {
  fields: OrderFields;
  lines: LineDraft[];
  charges: ChargeDraft[] | null;
}

/**
 * Builds the order's fields, lines and charges after applying `input` to `base` (null: create),
 * checking every reference within the store. Throws one 422 with every problem.
 */
async function prepare(
  call: Call,
  input: OrderInput,
  base: { order: OrderRow; lines: LineRow[]; charges: ChargeRow[] } | null,
): Promise<Prepared> {
  const { trx, store } = call;
  const problems = new DetailCollector();
  const today = localDate(call.ctx.clock.now(), store.timezone);

  const supplierId = input.supplier_id ?? base?.order.supplier_id;
  if (supplierId === undefined) problems.add("supplier_id", "required", "is required");
  const lineInputs = input.lines;
  if (!base && (!lineInputs || lineInputs.length === 0))
    problems.add("lines", "required", "at least one line is required");
  problems.throwIfAny();

  const refs = referencesOf(lineInputs ?? [], base?.lines ?? []);
  const locationIds = [...refs.locationIds];
  if (input.location_id != null) locationIds.push(input.location_id);
  const taxRateIds = [...refs.taxRateIds];
  if (input.tax_rate_id != null) taxRateIds.push(input.tax_rate_id);

  const supplierNeeded = !base || input.supplier_id !== undefined;
  const currencyGiven = input.currency ?? null;
  const chargeCurrencies = (input.charges ?? []).map((c) => c.currency).filter((c): c is string => !!c);
  const [supplier, lookups, rates, fallbackLocation, returnSource] = await Promise.all([
    supplierNeeded ? supplierFor(call, supplierId as number, problems) : Promise.resolve(null),
    fetchLookups(trx, store.id, {
      supplierId: supplierId as number,
      variantIds: refs.variantIds,
      itemIds: refs.itemIds,
      locationIds,
      taxRateIds,
    }),
    // Every currency the order may need: given, the supplier's (looked up by subquery), the charges'.
    (async () => {
      const list = [...chargeCurrencies];
      if (currencyGiven) list.push(currencyGiven);
      if (base) list.push(base.order.currency);
      const map = await storeRates(trx, store.id, list);
      if (supplierNeeded && !currencyGiven) {
        const row = await trx
          .selectFrom("exchange_rates as er")
          .innerJoin("suppliers as s", (j) =>
            j.onRef("s.currency", "=", "er.currency").on("s.store_id", "=", store.id),
          )
          .select(["er.currency", "er.rate_to_base", "er.date"])
          .where("er.store_id", "=", store.id)
          .where("s.id", "=", supplierId as number)
          .executeTakeFirst();
        if (row) map.set(row.currency, { rate_to_base: row.rate_to_base, date: row.date });
      }
      return map;
    })(),
    !base && input.location_id == null ? defaultLocation(trx, store.id) : Promise.resolve(null),
    input.return_source_po_id != null
      ? trx
          .selectFrom("purchase_orders")
          .select("id")
          .where("store_id", "=", store.id)
          .where("id", "=", input.return_source_po_id)
          .executeTakeFirst()
      : Promise.resolve(null),
  ]);
  if (input.return_source_po_id != null && !returnSource)
    problems.add("return_source_po_id", "not_found", "is not a purchase order of this store");

  // Currency and exchange rate.
  let currency = base?.order.currency ?? store.currency;
  if (currencyGiven !== null) currency = currencyGiven;
  else if (!base && supplier?.currency) currency = supplier.currency;
  const currencyValid = isKnownCurrency(currency);
  if (!currencyValid) problems.add("currency", "invalid_value", "is not a known ISO 4217 currency code");
  const manual =
    input.exchange_rate !== undefined
      ? parseManualRate(input.exchange_rate, problems)
      : base?.order.exchange_rate_source === "manual" && currency === base.order.currency
        ? base.order.exchange_rate
        : null;
  let exchange = base
    ? {
        rate: base.order.exchange_rate,
        base_currency: base.order.exchange_rate_base_currency,
        date: base.order.exchange_rate_date,
        source: base.order.exchange_rate_source,
      }
    : null;
  const rateChanges = !base || input.exchange_rate !== undefined || currency !== base.order.currency;
  if (currencyValid && rateChanges) {
    exchange = orderExchangeRate(currency, store.currency, manual, rates, today);
    if (!exchange)
      problems.add(
        "currency",
        "no_exchange_rate",
        `the store has no exchange rate for ${currency}: set one in the store's exchange rates or send exchange_rate`,
      );
  }

  // Location.
  let locationId = base?.order.location_id;
  if (input.location_id != null) {
    if (!lookups.locations.has(input.location_id))
      problems.add("location_id", "not_found", "is not a location of this store");
    locationId = input.location_id;
  } else if (!base || input.location_id === null) {
    const loc =
      fallbackLocation ?? (input.location_id === null ? await defaultLocation(trx, store.id) : null);
    if (!loc) problems.add("location_id", "required", "the store has no active location to ship to");
    else locationId = loc.id;
  }

  // Tax rate (snapshot of name and percent).
  let taxRateId = base?.order.tax_rate_id ?? null;
  let taxRateName = base?.order.tax_rate_name ?? null;
  let taxRatePercent = base?.order.tax_rate_percent ?? "0";
  if (input.tax_rate_id !== undefined) {
    taxRateId = input.tax_rate_id;
    if (taxRateId === null) {
      taxRateName = null;
      taxRatePercent = "0";
    } else {
      const rate = lookups.taxRates.get(taxRateId);
      if (!rate) problems.add("tax_rate_id", "not_found", "is not a tax rate of this store");
      else {
        taxRateName = rate.name;
        taxRatePercent = rate.rate_percent;
      }
    }
  }

  if (input.number !== undefined && input.number !== null && input.number.trim() === "")
    problems.add("number", "invalid_length", "must not be empty (leave it out for automatic numbering)");

  const fields = {} as OrderFields;
  const b = base?.order;
  for (const f of PLAIN_FIELDS) {
    const given = input[f];
    // biome-ignore lint/suspicious/noExplicitAny: copying same-named fields
    (fields as any)[f] = given !== undefined ? given : b ? b[f] : null;
  }
  if (!b) {
    fields.type = input.type ?? "purchase";
    fields.taxes_included = input.taxes_included ?? false;
    fields.charges_taxable = input.charges_taxable ?? false;
    fields.ships_to_customer = input.ships_to_customer ?? false;
    fields.updates_stock = input.updates_stock ?? supplier?.default_updates_stock ?? true;
  }
  Object.assign(fields, {
    supplier_id: supplierId as number,
    number: input.number !== undefined ? input.number : (b?.number ?? null),
    currency,
    location_id: locationId as number,
    tax_rate_id: taxRateId,
    tax_rate_name: taxRateName,
    tax_rate_percent: taxRatePercent,
    exchange_rate: exchange?.rate ?? "1",
    exchange_rate_base_currency: exchange?.base_currency ?? store.currency,
    exchange_rate_date: exchange?.date ?? today,
    exchange_rate_source: exchange?.source ?? "identity",
  });

  // Lines: a full replacement when given, else the current ones.
  let lines: LineDraft[];
  if (lineInputs) {
    const existing = base ? new Map(base.lines.map((l) => [l.id, l])) : undefined;
    lines = resolveLines(
      {
        currency,
        storeCurrency: store.currency,
        today,
        lookups,
        path: "lines",
        firstPosition: 1,
        existing,
        problems,
      },
      lineInputs,
    );
    if (base) {
      const kept = new Set(lines.map((l) => l.id).filter((id) => id !== undefined));
      for (const old of base.lines) {
        if (!kept.has(old.id) && old.received_quantity > 0)
          problems.add("lines", "line_received", `line ${old.id} has received units and cannot be removed`);
      }
    }
  } else {
    lines = (base?.lines ?? []).map(lineDraftOf);
  }

  // Charges: a full replacement when given (or when the order currency changed, to reconvert them).
  let charges: ChargeDraft[] | null = null;
  const rateToBase = fields.exchange_rate;
  if (input.charges) {
    charges = resolveCharges(input.charges, {
      orderCurrency: currency,
      orderRateToBase: rateToBase,
      storeCurrency: store.currency,
      rates,
      linePositions: new Set(lines.map((l) => l.position)),
      problems,
    });
  } else if (base && (currency !== base.order.currency || rateToBase !== base.order.exchange_rate)) {
    const more = await storeRates(
      trx,
      store.id,
      base.charges.map((c) => c.currency),
    );
    for (const [k, v] of more) rates.set(k, v);
    charges = resolveCharges(base.charges.map(chargeInputOf), {
      orderCurrency: currency,
      orderRateToBase: rateToBase,
      storeCurrency: store.currency,
      rates,
      linePositions: new Set(lines.map((l) => l.position)),
      problems,
    });
  }
  problems.throwIfAny();
  return { fields, lines, charges };
}

function lineDraftOf(l: LineRow): LineDraft {
  return {
    id: l.id,
    position: l.position,
    product_title: l.product_title,
    variant_title: l.variant_title,
    sku: l.sku,
    supplier_sku: l.supplier_sku,
    barcode: l.barcode,
    pack_code: l.pack_code,
    inventory_item_id: l.inventory_item_id,
    variant_id: l.variant_id,
    product_id: l.product_id,
    location_id: l.location_id,
    quantity: l.quantity,
    cancelled_quantity: l.cancelled_quantity,
    received_quantity: l.received_quantity,
    unit_cost: l.unit_cost,
    discount_percent: l.discount_percent,
    taxable: l.taxable,
    tax_rate_id: l.tax_rate_id,
    tax_rate_percent: l.tax_rate_percent,
    weight_grams: l.weight_grams,
    supplier_note: l.supplier_note,
    internal_note: l.internal_note,
    warnings: l.warnings ?? [],
    created_at: l.created_at,
  };
}

function chargeInputOf(c: ChargeRow): ChargeInput {
  return {
    kind: c.kind,
    label: c.label,
    // Stored with 4 places; the input rules allow the currency's minor units only.
    amount: new Big(c.amount).toString(),
    currency: c.currency,
    billed_by_supplier: c.billed_by_supplier,
    allocation_method: c.allocation_method,
    custom_split:
      c.custom_split?.map((e) => ({ position: e.position, amount: new Big(e.amount).toString() })) ?? null,
  };
}

function chargeDraftOf(c: ChargeRow): ChargeDraft {
  return {
    position: c.position,
    kind: c.kind,
    label: c.label,
    amount: c.amount,
    currency: c.currency,
    rate_to_order_currency: c.rate_to_order_currency,
    billed_by_supplier: c.billed_by_supplier,
    allocation_method: c.allocation_method,
    custom_split: c.custom_split,
  };
}

const BATCH = 1000;

/** Inserts lines (multi-row, in batches of 1,000); returns their ids in order. */
async function insertLines(
  trx: Db,
  storeId: number,
  orderId: number,
  lines: readonly LineDraft[],
  money: ReturnType<typeof computeMoney>["lines"],
  now: Date,
): Promise<number[]> {
  const ids: number[] = [];
  for (let start = 0; start < lines.length; start += BATCH) {
    const rows = lines.slice(start, start + BATCH).map((l, i) => ({
      ...lineRowOf(storeId, orderId, l, now),
      line_total: money[start + i].line_total,
      tax_amount: money[start + i].tax_amount,
      tax_rate_percent: money[start + i].tax_rate_percent,
    }));
    const inserted = await trx.insertInto("purchase_order_lines").values(rows).returning("id").execute();
    for (const r of inserted) ids.push(r.id);
  }
  return ids;
}

async function insertCharges(
  trx: Db,
  storeId: number,
  orderId: number,
  charges: readonly ChargeDraft[],
  money: ReturnType<typeof computeMoney>["charges"],
  now: Date,
): Promise<number[]> {
  if (charges.length === 0) return [];
  const rows = charges.map((c, i) => ({
    store_id: storeId,
    purchase_order_id: orderId,
    position: c.position,
    kind: c.kind,
    label: c.label,
    amount: c.amount,
    currency: c.currency,
    amount_in_order_currency: money[i].amount_in_order_currency,
    rate_to_order_currency: c.rate_to_order_currency,
    tax_amount: money[i].tax_amount,
    billed_by_supplier: c.billed_by_supplier,
    allocation_method: c.allocation_method,
    custom_split: c.custom_split ? JSON.stringify(c.custom_split) : null,
    created_at: now,
    updated_at: now,
  }));
  const inserted = await trx.insertInto("purchase_order_charges").values(rows).returning("id").execute();
  return inserted.map((r) => r.id);
}

/** Writes new line money for lines whose amounts changed (one statement). */
async function updateLineMoney(
  trx: Db,
  storeId: number,
  lines: readonly LineRow[],
  money: ReturnType<typeof computeMoney>["lines"],
): Promise<void> {
  const changed = lines
    .map((l, i) => ({ l, m: money[i] }))
    .filter(
      ({ l, m }) =>
        !new Big(l.line_total).eq(m.line_total) ||
        !new Big(l.tax_amount).eq(m.tax_amount) ||
        !new Big(l.tax_rate_percent).eq(m.tax_rate_percent),
    );
  if (changed.length === 0) return;
  const values = sql.join(
    changed.map(
      ({ l, m }) =>
        sql`(${l.id}::integer, ${m.line_total}::numeric, ${m.tax_amount}::numeric, ${m.tax_rate_percent}::numeric)`,
    ),
  );
  await sql`update purchase_order_lines as l
    set line_total = v.line_total, tax_amount = v.tax_amount, tax_rate_percent = v.tax_rate_percent
    from (values ${values}) as v(id, line_total, tax_amount, tax_rate_percent)
    where l.id = v.id and l.store_id = ${storeId}`.execute(trx);
}

/** Writes new charge money for charges whose amounts changed (one statement). */
async function updateChargeMoney(
  trx: Db,
  storeId: number,
  charges: readonly ChargeRow[],
  money: ReturnType<typeof computeMoney>["charges"],
): Promise<void> {
  const changed = charges
    .map((c, i) => ({ c, m: money[i] }))
    .filter(
      ({ c, m }) =>
        !new Big(c.amount_in_order_currency).eq(m.amount_in_order_currency) ||
        !new Big(c.tax_amount).eq(m.tax_amount),
    );
  if (changed.length === 0) return;
  const values = sql.join(
    changed.map(
      ({ c, m }) => sql`(${c.id}::integer, ${m.amount_in_order_currency}::numeric, ${m.tax_amount}::numeric)`,
    ),
  );
  await sql`update purchase_order_charges as c
    set amount_in_order_currency = v.amount_in_order_currency, tax_amount = v.tax_amount
    from (values ${values}) as v(id, amount_in_order_currency, tax_amount)
    where c.id = v.id and c.store_id = ${storeId}`.execute(trx);
}

/** Inserts the order row with a store number (automatic or supplied); 422 `taken` on a used number. */
async function insertOrder(
  call: Call,
  fields: OrderFields,
  totals: ReturnType<typeof computeMoney>["order"],
  extra: { status?: PurchaseOrderStatus; source?: string },
  now: Date,
): Promise<OrderRow> {
  const { trx, store } = call;
  const sequentialId = await nextSequentialIds(trx, store.id);
  const { number: supplied, ...rest } = fields;
  for (let attempt = 0; attempt < 1000; attempt++) {
    let number: string;
    if (supplied !== null) number = supplied;
    else {
      const taken = await takeOrderNumbers(trx, store.id);
      number = formatOrderNumber(taken.prefix, taken.first);
    }
    const row = await trx
      .insertInto("purchase_orders")
      .values({
        ...rest,
        store_id: store.id,
        sequential_id: sequentialId,
        number,
        status: extra.status ?? "draft",
        source: extra.source ?? "api",
        ...totals,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(["store_id", "number"]).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (row) return row;
    if (supplied !== null) {
      const problems = new DetailCollector();
      problems.add("number", "taken", "is already the number of another purchase order in this store");
      problems.throwIfAny();
    }
    // An automatic number someone already used by hand: take the next one.
  }
  throw new Error("could not find a free purchase order number");
}

// ---------------------------------------------------------------------------------------------------
// Create

export async function createPurchaseOrder(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  input: OrderInput,
): Promise<PurchaseOrder> {
  const call: Call = { ctx, trx, store, actor };
  const now = ctx.clock.now();
  const prepared = await prepare(call, input, null);
  return writeNewOrder(call, prepared.fields, prepared.lines, prepared.charges ?? [], now, {});
}

async function writeNewOrder(
  call: Call,
  fields: OrderFields,
  lines: readonly LineDraft[],
  charges: readonly ChargeDraft[],
  now: Date,
  historyData: Record<string, unknown>,
): Promise<PurchaseOrder> {
  const { trx, store } = call;
  const money = computeMoney(fields, lines, charges);
  const order = await insertOrder(call, fields, money.order, {}, now);
  await insertLines(trx, store.id, order.id, lines, money.lines, now);
  await insertCharges(trx, store.id, order.id, charges, money.charges, now);
  await history(
    call,
    order.id,
    "created",
    { number: order.number, status: order.status, ...historyData },
    now,
  );
  const presented = await loadPurchaseOrder(trx, store.id, order.id);
  await emitOrder(call, "purchase_order.created", presented);
  return presented;
}

// ---------------------------------------------------------------------------------------------------
// PATCH

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return false;
  if (
    typeof a === "string" &&
    typeof b === "string" &&
    /^-?\d+(\.\d+)?$/.test(a) &&
    /^-?\d+(\.\d+)?$/.test(b)
  )
    return new Big(a).eq(b);
  return String(a) === String(b);
}

function historyValue(field: string, value: unknown): unknown {
  if (field === "exchange_rate" && typeof value === "string") return Number(value);
  return value;
}

export async function updatePurchaseOrder(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
  input: OrderInput,
): Promise<PurchaseOrder> {
  const call: Call = { ctx, trx, store, actor };
  const order = await lockPurchaseOrder(trx, store.id, id);
  const given = Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined);
  const refused = refusedPatchField(order.status, given);
  if (refused) throw patchRefusal(order.status, refused);
  if (given.length === 0) return loadPurchaseOrder(trx, store.id, id);

  const now = ctx.clock.now();
  const [lines, charges] = await Promise.all([
    orderLines(trx, store.id, id),
    orderCharges(trx, store.id, id),
  ]);
  const prepared = await prepare(call, input, { order, lines, charges });
  const { fields } = prepared;
  const chargeDrafts = prepared.charges ?? charges.map(chargeDraftOf);
  const money = computeMoney(fields, prepared.lines, chargeDrafts);

  // What changed, for history (and whether anything did).
  const changes: Record<string, [unknown, unknown]> = {};
  for (const f of HISTORY_FIELDS) {
    const before = (order as unknown as Record<string, unknown>)[f];
    const after = (fields as unknown as Record<string, unknown>)[f];
    if (!sameValue(before, after)) changes[f] = [historyValue(f, before), historyValue(f, after)];
  }
  if (!sameValue(order.total, money.order.total))
    changes.total = [
      formatMoney(new Big(order.total), order.currency),
      formatMoney(new Big(money.order.total), fields.currency),
    ];
  const lineChanges = input.lines ? diffLines(lines, prepared.lines) : null;
  const chargeChanges =
    prepared.charges && input.charges ? { replaced: charges.length, now: chargeDrafts.length } : null;
  const linesChanged =
    lineChanges !== null &&
    (lineChanges.added > 0 || lineChanges.removed.length > 0 || lineChanges.updated.length > 0);
  const chargesChanged = chargeChanges !== null && chargesDiffer(charges, chargeDrafts);
  if (Object.keys(changes).length === 0 && !linesChanged && !chargesChanged) {
    return loadPurchaseOrder(trx, store.id, id);
  }

  const before = incomingOf(order, lines);
  // Status of an open order after its lines changed: received when nothing is left outstanding.
  let status = order.status;
  if (isOpen(order.status) && input.lines) status = statusAfterCancel(order.status, prepared.lines);

  const { number, ...rest } = fields;
  const updated = await trx
    .updateTable("purchase_orders")
    .set({
      ...rest,
      ...(number !== null && { number }),
      ...money.order,
      status,
      ...(status === "received" && order.status !== "received" && { received_at: now }),
      updated_at: now,
    })
    .where("store_id", "=", store.id)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow()
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) {
        const problems = new DetailCollector();
        problems.add("number", "taken", "is already the number of another purchase order in this store");
        problems.throwIfAny();
      }
      throw error;
    });

  if (input.lines) {
    await trx
      .deleteFrom("purchase_order_lines")
      .where("store_id", "=", store.id)
      .where("purchase_order_id", "=", id)
      .execute();
    await insertLines(trx, store.id, id, prepared.lines, money.lines, now);
  } else {
    await updateLineMoney(trx, store.id, lines, money.lines);
  }
  if (prepared.charges) {
    await trx
      .deleteFrom("purchase_order_charges")
      .where("store_id", "=", store.id)
      .where("purchase_order_id", "=", id)
      .execute();
    await insertCharges(trx, store.id, id, chargeDrafts, money.charges, now);
  } else {
    await updateChargeMoney(trx, store.id, charges, money.charges);
  }
  if (!sameValue(order.total, money.order.total)) await refreshPaymentStatus(trx, store.id, id);

  const after = incomingOf(updated, prepared.lines);
  await pushIncomingChange(ctx, trx, updated, before, after);

  const data: Record<string, unknown> = { changes };
  if (lineChanges && linesChanged) {
    const newLines = await orderLines(trx, store.id, id);
    const keptIds = new Set(lines.map((l) => l.id));
    data.lines = {
      added: newLines.filter((l) => !keptIds.has(l.id)).map((l) => l.id),
      removed: lineChanges.removed,
      updated: lineChanges.updated,
    };
  }
  if (chargesChanged && chargeChanges) data.charges = [chargeChanges.replaced, chargeChanges.now];
  await history(call, id, "updated", data, now);
  const presented = await loadPurchaseOrder(trx, store.id, id);
  await emitOrder(call, "purchase_order.updated", presented);
  if (status === "received" && order.status !== "received") {
    await history(call, id, "received", { via: "lines_updated" }, now);
    await emitOrder(call, "purchase_order.received", presented);
  }
  return presented;
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "23505";
}

const LINE_COMPARE: (keyof LineDraft)[] = [
  "position",
  "product_title",
  "variant_title",
  "sku",
  "supplier_sku",
  "barcode",
  "pack_code",
  "inventory_item_id",
  "variant_id",
  "location_id",
  "quantity",
  "unit_cost",
  "discount_percent",
  "taxable",
  "tax_rate_id",
  "weight_grams",
  "supplier_note",
  "internal_note",
];

function diffLines(before: readonly LineRow[], after: readonly LineDraft[]) {
  const kept = new Map(after.filter((l) => l.id !== undefined).map((l) => [l.id as number, l]));
  const removed = before.filter((l) => !kept.has(l.id)).map((l) => l.id);
  const updated = before
    .filter((l) => {
      const next = kept.get(l.id);
      if (!next) return false;
      return LINE_COMPARE.some((f) => !sameValue((l as unknown as Record<string, unknown>)[f], next[f]));
    })
    .map((l) => l.id);
  const added = after.filter((l) => l.id === undefined).length;
  return { added, removed, updated };
}

function chargesDiffer(before: readonly ChargeRow[], after: readonly ChargeDraft[]): boolean {
  if (before.length !== after.length) return true;
  return before.some((c, i) => {
    const n = after[i];
    return (
      c.kind !== n.kind ||
      c.label !== n.label ||
      !sameValue(c.amount, n.amount) ||
      c.currency !== n.currency ||
      !sameValue(c.rate_to_order_currency, n.rate_to_order_currency) ||
      c.billed_by_supplier !== n.billed_by_supplier ||
      c.allocation_method !== n.allocation_method ||
      JSON.stringify(c.custom_split) !== JSON.stringify(n.custom_split)
    );
  });
}

// ---------------------------------------------------------------------------------------------------
// DELETE

export async function deletePurchaseOrder(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
): Promise<void> {
  const call: Call = { ctx, trx, store, actor };
  const order = await lockPurchaseOrder(trx, store.id, id);
  assertCan("delete", order.status);
  const presented = await loadPurchaseOrder(trx, store.id, id);
  await trx
    .deleteFrom("purchase_order_history")
    .where("store_id", "=", store.id)
    .where("purchase_order_id", "=", id)
    .execute();
  await trx.deleteFrom("purchase_orders").where("store_id", "=", store.id).where("id", "=", id).execute();
  await emitOrder(call, "purchase_order.deleted", presented);
}

// ---------------------------------------------------------------------------------------------------
// Lifecycle

export async function markOrdered(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
  body: { ordered_at?: string },
): Promise<PurchaseOrder> {
  const call: Call = { ctx, trx, store, actor };
  const order = await lockPurchaseOrder(trx, store.id, id);
  const target = assertCan("mark_ordered", order.status);
  const now = ctx.clock.now();
  const orderedAt = body.ordered_at ? new Date(body.ordered_at) : now;
  const lines = await orderLines(trx, store.id, id);
  const status = resolveTarget(target, order.status, lines) as PurchaseOrderStatus;
  const updated = await setOrder(trx, store.id, id, { status, ordered_at: orderedAt, updated_at: now });
  await pushIncomingChange(ctx, trx, updated, incomingOf(order, lines), incomingOf(updated, lines));
  await history(call, id, "ordered", { ordered_at: orderedAt.toISOString() }, now);
  const presented = await loadPurchaseOrder(trx, store.id, id);
  await emitOrder(call, "purchase_order.ordered", presented);
  return presented;
}

export async function markInTransit(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
  body: { expected_at?: string; note?: string },
): Promise<PurchaseOrder> {
  const call: Call = { ctx, trx, store, actor };
  const order = await lockPurchaseOrder(trx, store.id, id);
  assertCan("mark_in_transit", order.status);
  const now = ctx.clock.now();
  await setOrder(trx, store.id, id, {
    status: "in_transit",
    in_transit_at: now,
    ...(body.expected_at !== undefined && { expected_at: body.expected_at }),
    updated_at: now,
  });
  await history(
    call,
    id,
    "in_transit",
    { from: order.status, expected_at: body.expected_at ?? order.expected_at, note: body.note ?? null },
    now,
  );
  const presented = await loadPurchaseOrder(trx, store.id, id);
  await emitOrder(call, "purchase_order.in_transit", presented);
  return presented;
}

async function setOrder(
  trx: Db,
  storeId: number,
  id: number,
  values: Updateable<PurchaseOrdersTable>,
): Promise<OrderRow> {
  return trx
    .updateTable("purchase_orders")
    .set(values)
    .where("store_id", "=", storeId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

async function closeLocked(call: Call, order: OrderRow, now: Date): Promise<OrderRow> {
  const { ctx, trx, store } = call;
  assertCan("close", order.status);
  const lines = await orderLines(trx, store.id, order.id);
  const updated = await setOrder(trx, store.id, order.id, {
    status: "closed",
    closed_at: now,
    updated_at: now,
  });
  const before = incomingOf(order, lines);
  await pushIncomingChange(ctx, trx, updated, before, incomingOf(updated, lines));
  const retracted =
    order.updates_stock && order.type !== "return" && isOpen(order.status)
      ? lines.reduce((s, l) => s + (l.inventory_item_id === null ? 0 : outstandingOf(l)), 0)
      : 0;
  await history(call, order.id, "closed", { from: order.status, retracted_quantity: retracted }, now);
  return updated;
}

export async function closeOrder(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
): Promise<PurchaseOrder> {
  const call: Call = { ctx, trx, store, actor };
  const order = await lockPurchaseOrder(trx, store.id, id);
  await closeLocked(call, order, ctx.clock.now());
  const presented = await loadPurchaseOrder(trx, store.id, id);
  await emitOrder(call, "purchase_order.closed", presented);
  return presented;
}

export async function reopenOrder(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
): Promise<PurchaseOrder> {
  const call: Call = { ctx, trx, store, actor };
  const order = await lockPurchaseOrder(trx, store.id, id);
  const target = assertCan("reopen", order.status);
  const now = ctx.clock.now();
  const lines = await orderLines(trx, store.id, id);
  const status = resolveTarget(target, order.status, lines) as PurchaseOrderStatus;
  const updated = await setOrder(trx, store.id, id, { status, closed_at: null, updated_at: now });
  await pushIncomingChange(ctx, trx, updated, incomingOf(order, lines), incomingOf(updated, lines));
  await history(call, id, "reopened", { status }, now);
  const presented = await loadPurchaseOrder(trx, store.id, id);
  await emitOrder(call, "purchase_order.reopened", presented);
  return presented;
}

export async function archiveOrder(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
  body: { close?: boolean },
): Promise<PurchaseOrder> {
  const call: Call = { ctx, trx, store, actor };
  let order = await lockPurchaseOrder(trx, store.id, id);
  assertCan("archive", order.status);
  if (order.archived)
    throw invalidTransition(
      `The purchase order is ${order.status} and already archived: it cannot be archived again.`,
    );
  const now = ctx.clock.now();
  const closing = body.close === true && isOpen(order.status);
  if (closing) {
    order = await closeLocked(call, order, now);
    await emitOrder(call, "purchase_order.closed", await loadPurchaseOrder(trx, store.id, id));
  }
  await setOrder(trx, store.id, id, { archived: true, archived_at: now, updated_at: now });
  await history(call, id, "archived", { closed: closing }, now);
  const presented = await loadPurchaseOrder(trx, store.id, id);
  await emitOrder(call, "purchase_order.archived", presented);
  return presented;
}

export async function unarchiveOrder(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
): Promise<PurchaseOrder> {
  const call: Call = { ctx, trx, store, actor };
  const order = await lockPurchaseOrder(trx, store.id, id);
  assertCan("unarchive", order.status);
  if (!order.archived)
    throw invalidTransition(
      `The purchase order is ${order.status} and not archived: it cannot be unarchived.`,
    );
  const now = ctx.clock.now();
  await setOrder(trx, store.id, id, { archived: false, archived_at: null, updated_at: now });
  await history(call, id, "unarchived", {}, now);
  const presented = await loadPurchaseOrder(trx, store.id, id);
  await emitOrder(call, "purchase_order.updated", presented);
  return presented;
}

export async function duplicateOrder(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
): Promise<PurchaseOrder> {
  const call: Call = { ctx, trx, store, actor };
  const source = await lockPurchaseOrder(trx, store.id, id);
  assertCan("duplicate", source.status);
  const now = ctx.clock.now();
  const today = localDate(now, store.timezone);
  const [lines, charges] = await Promise.all([
    orderLines(trx, store.id, id),
    orderCharges(trx, store.id, id),
  ]);
  let exchange: Pick<OrderFields, "exchange_rate" | "exchange_rate_date" | "exchange_rate_source"> = {
    exchange_rate: source.exchange_rate,
    exchange_rate_date: today,
    exchange_rate_source: source.exchange_rate_source,
  };
  if (source.exchange_rate_source === "store_rates") {
    const current = (await storeRates(trx, store.id, [source.currency])).get(source.currency);
    if (current)
      exchange = {
        exchange_rate: current.rate_to_base,
        exchange_rate_date: current.date,
        exchange_rate_source: "store_rates",
      };
    else exchange.exchange_rate_date = source.exchange_rate_date;
  }
  const fields: OrderFields = {
    supplier_id: source.supplier_id,
    number: null,
    currency: source.currency,
    type: source.type,
    return_reason: source.return_reason,
    return_source_po_id: source.return_source_po_id,
    location_id: source.location_id,
    tax_rate_id: source.tax_rate_id,
    tax_rate_name: source.tax_rate_name,
    tax_rate_percent: source.tax_rate_percent,
    taxes_included: source.taxes_included,
    charges_taxable: source.charges_taxable,
    reference: null,
    customer_order_number: null,
    supplier_order_number: null,
    invoice_number: null,
    account_number: source.account_number,
    notes: source.notes,
    expected_at: null,
    payment_due_on: null,
    ship_to_override: source.ship_to_override,
    bill_to_override: source.bill_to_override,
    ships_to_customer: source.ships_to_customer,
    updates_stock: source.updates_stock,
    exchange_rate_base_currency: source.exchange_rate_base_currency,
    ...exchange,
  };
  const lineDrafts = lines.map((l) => {
    const { id: _id, created_at: _c, ...rest } = lineDraftOf(l);
    return { ...rest, received_quantity: 0, cancelled_quantity: 0 };
  });
  const chargeDrafts = charges.map(chargeDraftOf);
  const copy = await writeNewOrder(call, fields, lineDrafts, chargeDrafts, now, {
    duplicated_from: { id: source.id, number: source.number },
  });
  await history(call, id, "duplicated", { new_order_id: copy.id, new_number: copy.number }, now);
  return copy;
}

export async function addLines(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
  inputs: LineInput[],
): Promise<PurchaseOrder> {
  const call: Call = { ctx, trx, store, actor };
  const order = await lockPurchaseOrder(trx, store.id, id);
  assertCan("add_lines", order.status);
  const now = ctx.clock.now();
  const [lines, charges] = await Promise.all([
    orderLines(trx, store.id, id),
    orderCharges(trx, store.id, id),
  ]);
  const refs = referencesOf(inputs);
  const lookups: Lookups = await fetchLookups(trx, store.id, { supplierId: order.supplier_id, ...refs });
  const problems = new DetailCollector();
  const firstPosition = lines.reduce((m, l) => Math.max(m, l.position), 0) + 1;
  const drafts = resolveLines(
    {
      currency: order.currency,
      storeCurrency: store.currency,
      today: localDate(now, store.timezone),
      lookups,
      path: "lines",
      firstPosition,
      problems,
    },
    inputs,
  );
  problems.throwIfAny();
  const all = [...lines.map(lineDraftOf), ...drafts];
  const money = computeMoney(order, all, charges.map(chargeDraftOf));
  await updateLineMoney(trx, store.id, lines, money.lines.slice(0, lines.length));
  const newIds = await insertLines(trx, store.id, id, drafts, money.lines.slice(lines.length), now);
  const updated = await setOrder(trx, store.id, id, { ...money.order, updated_at: now });
  if (!sameValue(order.total, money.order.total)) await refreshPaymentStatus(trx, store.id, id);
  await pushIncomingChange(ctx, trx, updated, [], incomingOf(updated, drafts));
  await history(
    call,
    id,
    "lines_added",
    { lines: drafts.map((d, i) => ({ id: newIds[i], quantity: d.quantity })) },
    now,
  );
  const presented = await loadPurchaseOrder(trx, store.id, id);
  await emitOrder(call, "purchase_order.updated", presented);
  return presented;
}

export async function cancelRemaining(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
  lineId: number,
): Promise<PurchaseOrder> {
  const call: Call = { ctx, trx, store, actor };
  const order = await lockPurchaseOrder(trx, store.id, id);
  const lines = await orderLines(trx, store.id, id);
  const line = lines.find((l) => l.id === lineId);
  if (!line) throw notFound("line on this purchase order");
  const target = assertCan("cancel_remaining", order.status);
  const outstanding = outstandingOf(line);
  if (outstanding === 0)
    throw invalidTransition(
      `The purchase order is ${order.status}: line ${lineId} has nothing outstanding to cancel.`,
    );
  const now = ctx.clock.now();
  await trx
    .updateTable("purchase_order_lines")
    .set({ cancelled_quantity: line.cancelled_quantity + outstanding, updated_at: now })
    .where("id", "=", lineId)
    .where("store_id", "=", store.id)
    .execute();
  const after = lines.map((l) =>
    l.id === lineId ? { ...l, cancelled_quantity: l.cancelled_quantity + outstanding } : l,
  );
  const status = resolveTarget(target, order.status, after) as PurchaseOrderStatus;
  const received = status === "received" && order.status !== "received";
  const updated = await setOrder(trx, store.id, id, {
    status,
    ...(received && { received_at: now }),
    updated_at: now,
  });
  await pushIncomingChange(ctx, trx, updated, incomingOf(order, [line]), []);
  await history(call, id, "line_cancelled", { line_id: lineId, cancelled_quantity: outstanding }, now);
  if (received) await history(call, id, "received", { via: "cancel_remaining" }, now);
  const presented = await loadPurchaseOrder(trx, store.id, id);
  await emitOrder(call, "purchase_order.updated", presented);
  if (received) await emitOrder(call, "purchase_order.received", presented);
  return presented;
}
