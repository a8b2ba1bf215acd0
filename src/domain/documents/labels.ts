import type { PurchaseOrderTaxView } from "./purchase-order-view.ts";

/** "1 line", "3 lines": a count with its noun, singular for one. */
export function countLabel(count: number, singular: string, plural = `${singular}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? singular : plural}`;
}

function percent(value: number): string {
  return `${Number(value.toFixed(4))}%`;
}

/**
 * The tax row's label, naming the tax once: "Tax 0%" for an order without a tax rate, "VAT 20%" for a
 * rate named VAT, the name alone when it already states the rate ("GST 10%"), and "(included)" after it
 * when the prices include the tax.
 */
export function taxLabel(tax: PurchaseOrderTaxView | null): string {
  if (!tax) return "Tax";
  const name = (tax.name ?? "").replace(/\s+/g, " ").trim();
  const rate = percent(tax.rate_percent);
  const label = name === "" ? `Tax ${rate}` : name.includes(rate) ? name : `${name} ${rate}`;
  return tax.taxes_included ? `${label} (included)` : label;
}
