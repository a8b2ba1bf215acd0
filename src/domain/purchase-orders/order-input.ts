/**
 * Order input to the order's stored fields, lines and charges (create and PATCH): every reference is
 * checked within the store and every problem is gathered into one 422.
 */
import type { Db } from "../../db/database.ts";
import { defaultLocation } from "../catalog/index.ts";
import { DetailCollector, validationFailed } from "../errors.ts";
import { localDate } from "../local-time.ts";
import { isKnownCurrency, parseDecimalInput } from "../money.ts";
import type { OrderCall } from "./call.ts";
import { type ChargeDraft, orderExchangeRate, resolveCharges, storeRates } from "./charges.ts";
import { chargeInputOf, lineDraftOf } from "./drafts.ts";
import { assertLineCap } from "./line-cap.ts";
import { repriceConvertedLines } from "./line-costs.ts";
import { type LineDraft, referencesOf, resolveLines } from "./lines.ts";
import { checkNamedLocation, fetchLookups, type SupplierRef } from "./lookups.ts";
import { isWithin, MAX_RATE } from "./money-bounds.ts";
import { type OrderFields, type OrderInput, PLAIN_FIELDS } from "./order-fields.ts";
import { sameValue } from "./patch-diff.ts";
import type { ChargeRow, LineRow, OrderRow } from "./presenter.ts";
import { orderExists } from "./repository.ts";

/** The supplier's problem on `supplier_id`, if any: not the store's, or archived. */
function supplierProblem(row: SupplierRef | null, problems: DetailCollector): SupplierRef | null {
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

async function shipToDefault(trx: Db, storeId: number): Promise<{ id: number } | null> {
  const location = await defaultLocation(trx, storeId);
  return location ? { id: Number(location.id) } : null;
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
  if (!isWithin(parsed.value, MAX_RATE)) {
    problems.add("exchange_rate", "out_of_range", `must be below ${MAX_RATE.toFixed()}`);
    return null;
  }
  return parsed.value.toString();
}

export interface ResolvedOrder {
  fields: OrderFields;
  /** Every line after the input (the current ones when it gives none). */
  lines: LineDraft[];
  /** Some kept line's converted cost was converted again (the currency or rate changed). */
  linesRepriced: boolean;
  /** The charges to write, or null when the current ones stay. */
  charges: ChargeDraft[] | null;
}

/**
 * Builds the order's fields, lines and charges after applying `input` to `base` (null: create),
 * checking every reference within the store. Throws one 422 with every problem.
 */
export async function resolveOrderInput(
  call: OrderCall,
  input: OrderInput,
  base: { order: OrderRow; lines: LineRow[]; charges: ChargeRow[] } | null,
): Promise<ResolvedOrder> {
  const { trx, store } = call;
  const problems = new DetailCollector();
  const today = localDate(call.ctx.clock.now(), store.timezone);

  const supplierId = input.supplier_id ?? base?.order.supplier_id;
  if (supplierId === undefined) problems.add("supplier_id", "required", "is required");
  const lineInputs = input.lines;
  // Create and PATCH give the whole set of lines.
  if (lineInputs) assertLineCap(lineInputs.length, "lines");
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
  // The supplier and the ship-to default are read with the lines' references, in one statement.
  const wantsDefaultLocation = !base && input.location_id == null;
  const [lookups, rates, returnSource] = await Promise.all([
    fetchLookups(trx, store.id, {
      supplierId: supplierId as number,
      variantIds: refs.variantIds,
      itemIds: refs.itemIds,
      locationIds,
      taxRateIds,
      supplier: supplierNeeded,
      defaultLocation: wantsDefaultLocation,
    }),
    // Every currency the order may need: given, the current one, the charges'.
    storeRates(trx, store.id, [
      ...chargeCurrencies,
      ...(currencyGiven ? [currencyGiven] : []),
      ...(base ? [base.order.currency] : []),
    ]),
    input.return_source_po_id != null
      ? orderExists(trx, store.id, input.return_source_po_id)
      : Promise.resolve(false),
  ]);
  const supplier = supplierNeeded ? supplierProblem(lookups.supplier, problems) : null;
  const fallbackLocation =
    wantsDefaultLocation && lookups.defaultLocationId !== null ? { id: lookups.defaultLocationId } : null;
  // A new order without a currency takes the supplier's, which may need the store's rate too.
  if (
    !base &&
    !currencyGiven &&
    supplier?.currency &&
    supplier.currency !== store.currency &&
    !rates.has(supplier.currency)
  ) {
    for (const [k, v] of await storeRates(trx, store.id, [supplier.currency])) rates.set(k, v);
  }
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
    checkNamedLocation(lookups, input.location_id, "location_id", problems);
    locationId = input.location_id;
  } else if (!base || input.location_id === null) {
    const loc = fallbackLocation ?? (input.location_id === null ? await shipToDefault(trx, store.id) : null);
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
        exchangeRate: fields.exchange_rate,
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
  let linesRepriced = false;
  if (
    base &&
    exchange &&
    (currency !== base.order.currency || !sameValue(exchange.rate, base.order.exchange_rate))
  ) {
    ({ lines, repriced: linesRepriced } = repriceConvertedLines(
      { currency, storeCurrency: store.currency, exchangeRate: exchange.rate, today, lookups },
      lines,
      problems,
      input.exchange_rate !== undefined ? "exchange_rate" : "currency",
    ));
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
  return { fields, lines, linesRepriced, charges };
}

/** 422 on `number`: another order of the store has it. */
export function numberTaken() {
  return validationFailed([
    {
      field: "number",
      code: "taken",
      message: "is already the number of another purchase order in this store",
    },
  ]);
}
