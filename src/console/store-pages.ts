import type { FastifyRequest } from "fastify";
import { html, type SafeHtml } from "../html/template.ts";
import { storeIdOf } from "./actor.ts";
import type { AdminError, ErrorDetail } from "./admin.ts";
import type { StoreRef } from "./layout.ts";
import { storeApi } from "./store-api.ts";

/**
 * What the merchant's store pages (suppliers, purchase orders) share: the store they are about, read as
 * the signed-in user through the public API (so a staff member needs no admin rights), amounts in the
 * store's format with their currency, and forms that name each wrong field once, in the user's words.
 */

export interface StoreInfo extends StoreRef {
  currency: string;
  timezone: string;
}

/** The page's store as the user sees it (`/v2/whoami`); another store's id is a 404 page. */
export async function storeInfoOf(request: FastifyRequest): Promise<StoreInfo> {
  const who = await storeApi(request).get<{
    shop: { id: number; name: string; currency: string; timezone: string };
  }>("/whoami");
  return {
    id: storeIdOf(request),
    name: who.shop.name,
    currency: who.shop.currency,
    timezone: who.shop.timezone,
  };
}

const moneyFormats = new Map<string, Intl.NumberFormat>();

/**
 * "$1,234.50" / "€12.00": a decimal string in the currency's own format, the code after it when the
 * symbol is not the code itself ("$" is several currencies). Never through a float: Intl takes the
 * decimal string as it is. Amounts show every digit they have (a unit cost of 4.125 is 4.125);
 * `rounded` shows a derived figure (a landed unit cost of 9.02666667) at the currency's own precision,
 * as a merchant reads prices.
 */
export function money(
  amount: string | null | undefined,
  currency: string | null | undefined,
  digits: "exact" | "rounded" = "exact",
): string | null {
  if (amount === null || amount === undefined || amount === "") return null;
  if (!currency || !/^[A-Z]{3}$/.test(currency)) return amount;
  const key = `${currency} ${digits}`;
  let format = moneyFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat("en-US", {
      style: "currency",
      currency,
      currencyDisplay: "narrowSymbol",
      ...(digits === "exact" ? { maximumFractionDigits: 8 } : {}),
    });
    moneyFormats.set(key, format);
  }
  const shown = format.format(amount as unknown as number);
  return shown.includes(currency) ? shown : `${shown} ${currency}`;
}

/** A form's fields, named as the API names them, and the label each shows (the user's words). */
export type FieldLabels = Readonly<Record<string, string>>;

/** The API's 422 details for one field (or its children: `email_cc.1`). */
export function detailsFor(error: AdminError | null, name: string): ErrorDetail[] {
  return error?.details.filter((d) => d.field === name || d.field.startsWith(`${name}.`)) ?? [];
}

/** aria attributes of a field: invalid and described by its message when the API refused it. */
export function invalidAttrs(error: AdminError | null, name: string, id: string): SafeHtml | string {
  return detailsFor(error, name).length > 0 ? html` aria-invalid="true" aria-describedby="${id}-error"` : "";
}

/** The message under a refused field, once. */
export function fieldError(
  error: AdminError | null,
  name: string,
  id: string,
  label: string,
): SafeHtml | string {
  const found = detailsFor(error, name);
  if (found.length === 0) return "";
  return html`<p class="field-error" id="${id}-error">${label} ${found[0].message}</p>`;
}

/**
 * The summary above a refused form: one line per field, named by its label and linking to it, so the
 * API's names (address_line1) never reach the user.
 */
export function formErrors(error: AdminError | null, labels: FieldLabels, idOf: (name: string) => string) {
  if (!error) return "";
  const seen = new Set<string>();
  const items = error.details.flatMap((d) => {
    const name = Object.keys(labels).find((n) => d.field === n || d.field.startsWith(`${n}.`));
    const key = name ?? d.field;
    if (seen.has(key)) return [];
    seen.add(key);
    return name
      ? [html`<li><a href="#${idOf(name)}">${labels[name]}</a> ${d.message}</li>`]
      : [html`<li>${d.message}</li>`];
  });
  const intro = items.length > 0 ? "Nothing was saved. Please correct:" : error.message;
  return html`<div class="flash flash-error" role="alert" tabindex="-1" id="form-errors"><p>${intro}</p>${
    items.length > 0 ? html`<ul>${items}</ul>` : ""
  }</div>`;
}

/** A one-time key for a form, so a double submit or a reload does the write once. */
export function formKey(): string {
  return crypto.randomUUID();
}
