import { formatAddressLines } from "./address-format.ts";
import type { StoreView, SupplierView } from "./purchase-order-view.ts";

/**
 * How the purchase order documents (the PDF and its mail) write names, addresses, dates and
 * numbers: plain text in, plain text out, nothing about the page.
 */

export function storeLines(store: StoreView): string[] {
  return [...(store.address_lines ?? []), store.email, store.phone, store.domain].filter(isPresent);
}

export function supplierLines(supplier: SupplierView): string[] {
  const company =
    supplier.company_name && supplier.company_name !== supplier.name ? supplier.company_name : null;
  const address = supplier.address ? formatAddressLines(supplier.address) : [];
  return [
    supplier.name,
    company,
    supplier.contact_name ? `Attn: ${supplier.contact_name}` : null,
    ...address,
    supplier.email,
    supplier.phone,
  ].filter(isPresent);
}

/** Collapses newlines and runs of spaces, which would otherwise break a table cell's layout. */
export function oneLine(value: string | null | undefined): string {
  return (value ?? "").replace(/\s+/g, " ").trim();
}

export function isPresent(value: string | null | undefined): value is string {
  return typeof value === "string" && value.trim() !== "";
}

export function humanize(value: string): string {
  const words = value.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function parseTimestamp(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar date (YYYY-MM-DD) of a timestamp in the store's zone; UTC when the zone is unknown. */
export function formatTimestampAsDate(value: string, timeZone: string): string {
  const date = parseTimestamp(value);
  if (!date) return value;
  let format = dateFormats.get(timeZone);
  if (!format) {
    try {
      // en-CA prints ISO-style YYYY-MM-DD.
      format = new Intl.DateTimeFormat("en-CA", {
        timeZone,
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
      });
    } catch {
      return date.toISOString().slice(0, 10);
    }
    dateFormats.set(timeZone, format);
  }
  return format.format(date);
}

// --- numbers ---------------------------------------------------------------------------------

/**
 * Groups the integer part of a decimal string ("1234567.50" → "1,234,567.50") without going
 * through a float, so 8-decimal unit costs and large totals print exactly as the API returns them.
 */
export function formatAmount(amount: string): string {
  const match = /^(-?)(\d+)(\.\d+)?$/.exec(amount.trim());
  if (!match) return amount;
  const [, sign, whole, fraction = ""] = match;
  return `${sign}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${fraction}`;
}

/** "EUR 1,234.50": how the document prints an amount with its currency. */
export function formatMoney(amount: string, currency: string): string {
  return `${currency} ${formatAmount(amount)}`;
}

export function formatInteger(value: number): string {
  return formatAmount(String(value));
}

export function formatNumber(value: number): string {
  return String(Number(value.toFixed(4)));
}

export function formatPercent(value: number | null): string {
  return value ? `${formatNumber(value)}%` : "";
}
