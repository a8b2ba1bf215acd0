/**
 * Money primitives (docs/decisions.md, "Money").
 *
 * Every amount is a big.js `Big`; JS numbers never carry money. Division is done on scaled BigInts
 * (see `divideRoundHalfUp`) rather than `Big#div`, because `Big#div` already rounds at the shared
 * constructor's `Big.DP` (20 places), and rounding that again to cents is a double rounding. Every
 * rounding call passes the mode explicitly, so nothing depends on the shared `Big.RM` either.
 */
import Big from "big.js";

/** Unit costs and tier prices keep up to 8 decimal places (contract: "Unit cost precision"). */
export const UNIT_COST_PLACES = 8;

const ROUND_HALF_UP = 1 as const;
const ZERO = new Big("0");

const minorUnitsCache = new Map<string, number>();
let knownCurrencies: Set<string> | undefined;

/**
 * Number of decimal places of a currency's minor unit (USD 2, JPY 0, KWD 3), as `Intl.NumberFormat`
 * reports it. Cached because every amount formatted or rounded passes through here.
 * Throws RangeError for a malformed code (validate input with `isKnownCurrency` first).
 */
export function minorUnits(currency: string): number {
  const code = currency.toUpperCase();
  let places = minorUnitsCache.get(code);
  if (places === undefined) {
    places = new Intl.NumberFormat("en", { style: "currency", currency: code }).resolvedOptions()
      .maximumFractionDigits as number;
    minorUnitsCache.set(code, places);
  }
  return places;
}

/**
 * True for an ISO 4217 code written as 3 uppercase letters that the runtime's Intl data knows.
 * `Intl.NumberFormat` alone accepts any well-formed code ("XYZ"), so the list from
 * `Intl.supportedValuesOf` is what tells a real currency from a typo.
 */
export function isKnownCurrency(code: unknown): code is string {
  if (typeof code !== "string" || !/^[A-Z]{3}$/.test(code)) return false;
  knownCurrencies ??= new Set(Intl.supportedValuesOf("currency"));
  return knownCurrencies.has(code);
}

/** Half-up rounding: halves go away from zero, so -0.005 → -0.01 mirrors 0.005 → 0.01. */
export function roundHalfUp(value: Big, places: number): Big {
  const rounded = value.round(places, ROUND_HALF_UP);
  // -0.001 rounds to a zero that remembers its sign; drop it so it can never print as "-0.00".
  return rounded.c[0] === 0 ? ZERO : rounded;
}

/** Round an order amount to the currency's minor units. */
export function roundMoney(value: Big, currency: string): Big {
  return roundHalfUp(value, minorUnits(currency));
}

/** Order amounts: exactly the currency's minor units ("7.50", JPY "750"); rounds half-up first. */
export function formatMoney(value: Big, currency: string): string {
  const places = minorUnits(currency);
  return roundHalfUp(value, places).toFixed(places, ROUND_HALF_UP);
}

/**
 * Unit costs: at least the currency's minor units and at most 8 places, with zeros beyond the minor
 * units trimmed ("1.25", "0.12345678", USD 3.1 → "3.10", JPY 5 → "5", JPY 5.5 → "5.5").
 */
export function formatUnitCost(value: Big, currency: string): string {
  const minPlaces = minorUnits(currency);
  const places = Math.max(UNIT_COST_PLACES, minPlaces);
  const text = roundHalfUp(value, places).toFixed(places, ROUND_HALF_UP);
  const point = text.indexOf(".");
  if (point < 0) return text;
  let end = text.length;
  while (end > point + 1 + minPlaces && text[end - 1] === "0") end--;
  // With no minor units a fully trimmed fraction leaves a bare "." behind.
  if (end === point + 1) end = point;
  return text.slice(0, end);
}

/** A numeric column's text (no leading zeros, no exponent); anything else goes through big.js. */
const PLAIN = /^-?(0|[1-9]\d*)(\.\d+)?$/;

/**
 * Decimal text from a numeric column with `places` decimals (the currency's minor units), without
 * big.js when no rounding is needed (a page of 250 variants formats 750 amounts, a 50-line order
 * after three receipts ~600). Same result as formatMoney.
 */
export function moneyText(text: string, currency: string): string {
  const places = minorUnits(currency);
  // typeof: a caller's column typed as text may hold a number at run time; big.js takes both.
  if (typeof text === "string" && PLAIN.test(text)) {
    const [whole, fraction = ""] = text.split(".");
    if (/^0*$/.test(fraction.slice(places)) && !(whole === "-0" || /^-0+$/.test(whole))) {
      const kept = fraction.slice(0, places).padEnd(places, "0");
      return places === 0 ? whole : `${whole}.${kept}`;
    }
  }
  return formatMoney(new Big(text), currency);
}

/** Unit cost text (at least the minor units, up to 8 places, zeros trimmed); same as formatUnitCost. */
export function unitCostText(text: string, currency: string): string {
  const places = minorUnits(currency);
  if (typeof text === "string" && PLAIN.test(text) && !text.startsWith("-")) {
    const [whole, fraction = ""] = text.split(".");
    if (fraction.length <= 8) {
      let kept = fraction.replace(/0+$/, "");
      if (kept.length < places) kept = kept.padEnd(places, "0");
      return kept.length === 0 ? whole : `${whole}.${kept}`;
    }
  }
  return formatUnitCost(new Big(text), currency);
}

/** Sum of amounts; `Big#plus` is exact, so no rounding happens here. */
export function sumMoney(values: readonly Big[]): Big {
  return values.reduce((acc, v) => acc.plus(v), ZERO);
}

// ---------------------------------------------------------------------------------------------------
// Parsing client input

export type DecimalErrorCode =
  | "invalid_decimal"
  | "too_many_decimals"
  | "must_be_positive"
  | "must_not_be_negative"
  | "must_not_be_zero";

export type DecimalParseResult =
  | { ok: true; value: Big }
  | { ok: false; code: DecimalErrorCode; message: string };

export interface DecimalParseOptions {
  /** Most decimal places accepted (default 8, the unit-cost precision). */
  maxPlaces?: number;
  /** Accept values below zero (default false). */
  allowNegative?: boolean;
  /** Accept zero (default true). */
  allowZero?: boolean;
}

// Plain decimal notation only: no exponent, no leading "+", no bare "." on either side, no spaces.
const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * Parse a money/quantity-like input given as a JSON number or a decimal string.
 *
 * - Strings must be plain decimals ("12.50", "-1"); "1e5", "0x10", " 1", ".5", "" are refused, so a
 *   client never has a string read in a way it did not mean.
 * - Numbers go through `String(n)` (the shortest text that round-trips the double, so 0.1 is "0.1",
 *   not 0.1000000000000000055…). That text may be in exponent form for very small or large numbers
 *   (1e-7); that is JS's own spelling of the value, so it is accepted. NaN and ±Infinity are refused.
 * - Decimal places are counted on the value as written, trailing zeros included ("1.000000000" has 9).
 *
 * Sign rules: with `allowNegative: false` a negative value is `must_not_be_negative`, or
 * `must_be_positive` when zero is refused as well; with `allowZero: false` zero is `must_be_positive`
 * (or `must_not_be_zero` when negatives are allowed, the only honest name for that combination).
 */
export function parseDecimalInput(value: unknown, options: DecimalParseOptions = {}): DecimalParseResult {
  const { maxPlaces = UNIT_COST_PLACES, allowNegative = false, allowZero = true } = options;
  let text: string;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return fail("invalid_decimal", "must be a finite number");
    text = String(value);
  } else if (typeof value === "string") {
    if (!PLAIN_DECIMAL.test(value)) return fail("invalid_decimal", "must be a decimal number such as 12.50");
    text = value;
  } else {
    return fail("invalid_decimal", "must be a number or a decimal string");
  }

  const parsed = new Big(text);
  if (decimalPlacesAsWritten(text) > maxPlaces) {
    return fail("too_many_decimals", `must have at most ${maxPlaces} decimal places`);
  }
  const sign = parsed.cmp(ZERO);
  if (sign < 0 && !allowNegative) {
    return allowZero
      ? fail("must_not_be_negative", "must not be negative")
      : fail("must_be_positive", "must be greater than zero");
  }
  if (sign === 0 && !allowZero) {
    return allowNegative
      ? fail("must_not_be_zero", "must not be zero")
      : fail("must_be_positive", "must be greater than zero");
  }
  // "-0" parses with a negative sign; normalise so it never prints or stores as "-0".
  return { ok: true, value: sign === 0 ? ZERO : parsed };
}

function fail(code: DecimalErrorCode, message: string): DecimalParseResult {
  return { ok: false, code, message };
}

/** Places in "12.340" (3) or, for JS exponent spellings, "1.5e-7" (8) and "1e+21" (0). */
function decimalPlacesAsWritten(text: string): number {
  const [mantissa, exponent = "0"] = text.toLowerCase().split("e");
  const point = mantissa.indexOf(".");
  const fractionDigits = point < 0 ? 0 : mantissa.length - point - 1;
  return Math.max(0, fractionDigits - Number(exponent));
}

// ---------------------------------------------------------------------------------------------------
// Exact arithmetic on scaled integers

/** `value` as `int × 10^-scale` with `scale ≥ 0`, exactly. */
function toScaled(value: Big): { int: bigint; scale: number } {
  const digits = value.c.join("");
  const scale = value.c.length - 1 - value.e;
  const sign = value.s < 0 ? -1n : 1n;
  if (scale >= 0) return { int: sign * BigInt(digits), scale };
  return { int: sign * BigInt(digits) * 10n ** BigInt(-scale), scale: 0 };
}

/** The integer number of `10^-places` units in `value`; throws if `value` has more places. */
function toUnits(value: Big, places: number): bigint {
  const { int, scale } = toScaled(value);
  if (scale <= places) return int * 10n ** BigInt(places - scale);
  const factor = 10n ** BigInt(scale - places);
  if (int % factor !== 0n) {
    throw new RangeError(`${value.toString()} has more than ${places} decimal places`);
  }
  return int / factor;
}

function fromUnits(units: bigint, places: number): Big {
  return new Big(`${units.toString()}e-${places}`);
}

/** Integer division of a by b (b > 0) rounded half away from zero. */
function divRoundHalfUpBigInt(a: bigint, b: bigint): bigint {
  const negative = a < 0n;
  const abs = negative ? -a : a;
  let q = abs / b;
  if ((abs % b) * 2n >= b) q += 1n;
  return negative ? -q : q;
}

/**
 * `numerator / denominator` rounded half-up to `places`, computed exactly (no intermediate
 * truncation), e.g. tax extracted as amount × r / (100 + r). Throws RangeError on a zero denominator.
 */
export function divideRoundHalfUp(numerator: Big, denominator: Big, places: number): Big {
  const n = toScaled(numerator);
  const d = toScaled(denominator);
  if (d.int === 0n) throw new RangeError("division by zero");
  // n.int·10^-n.scale / (d.int·10^-d.scale) · 10^places  =  n.int·10^(places + d.scale) / (d.int·10^n.scale)
  let top = n.int * 10n ** BigInt(places + d.scale);
  let bottom = d.int * 10n ** BigInt(n.scale);
  if (bottom < 0n) {
    top = -top;
    bottom = -bottom;
  }
  return fromUnits(divRoundHalfUpBigInt(top, bottom), places);
}

// ---------------------------------------------------------------------------------------------------
// Allocation

/**
 * Split `total` into parts proportional to `weights`, each at `places` precision, summing exactly to
 * `total` (largest-remainder / Hamilton method).
 *
 * - `total` must already be at `places` precision (RangeError otherwise); it may be zero or negative.
 * - Weights must be ≥ 0 (any precision). If they are all zero the total is split equally.
 * - Each part is the exact share truncated toward zero, plus one unit for the parts with the largest
 *   remainders until the total is reached; equal remainders favour the lower index, so the result is
 *   deterministic. Every part is therefore within one unit (10^-places) of its exact share.
 * - A negative total is split as its absolute value and negated, so signs mirror exactly.
 * - No weights: `[]` for a zero total, RangeError otherwise (money would be lost).
 */
export function allocateLargestRemainder(total: Big, weights: readonly Big[], places: number): Big[] {
  const totalUnits = toUnits(total, places);
  if (weights.length === 0) {
    if (totalUnits !== 0n) throw new RangeError("cannot allocate a non-zero total over no weights");
    return [];
  }
  if (weights.some((w) => w.s < 0 && w.c[0] !== 0)) throw new RangeError("weights must not be negative");

  // Bring all weights to one integer scale so the shares are exact rationals.
  const scaled = weights.map(toScaled);
  const scale = Math.max(...scaled.map((w) => w.scale));
  let ints = scaled.map((w) => w.int * 10n ** BigInt(scale - w.scale));
  let weightSum = ints.reduce((a, b) => a + b, 0n);
  if (weightSum === 0n) {
    ints = ints.map(() => 1n);
    weightSum = BigInt(ints.length);
  }

  const negative = totalUnits < 0n;
  const absTotal = negative ? -totalUnits : totalUnits;
  const parts = ints.map((w) => (absTotal * w) / weightSum);
  const remainders = ints.map((w, i) => ({ i, r: (absTotal * w) % weightSum }));
  let left = absTotal - parts.reduce((a, b) => a + b, 0n);
  // Fewer leftover units than parts, because each truncation lost less than one unit.
  remainders.sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  for (const { i } of remainders) {
    if (left === 0n) break;
    parts[i] += 1n;
    left -= 1n;
  }
  return parts.map((p) => fromUnits(negative ? -p : p, places));
}
