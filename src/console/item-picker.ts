import { html, type SafeHtml } from "../html/template.ts";
import { AdminError } from "./admin.ts";
import { itemLabel, searchItems, type Variant } from "./item-search.ts";
import type { StoreApi } from "./store-api.ts";

/**
 * An item field that works without script and with a scanner: the user types (or scans) a SKU, a
 * barcode or words of the title. One match is the item; several are offered as a choice on the same
 * form (the text kept); none is a field error in the user's words.
 */

export type PickedItem =
  | { kind: "item"; variant: Variant }
  | { kind: "choose"; choices: Variant[] }
  | { kind: "none"; message: string };

const CHOICES = 10;

/** The item a form names: the variant chosen among offered ones, else the one match of the text. */
export async function pickItem(api: StoreApi, text: string, chosenVariantId: string): Promise<PickedItem> {
  if (/^[1-9]\d{0,15}$/.test(chosenVariantId)) {
    try {
      return {
        kind: "item",
        variant: (await api.get<{ data: Variant }>(`/variants/${chosenVariantId}`)).data,
      };
    } catch (error) {
      if (!(error instanceof AdminError && error.status === 404)) throw error;
    }
  }
  const q = text.trim();
  if (q === "") return { kind: "none", message: "is required: type a SKU, a barcode or words of the title." };
  const found = await searchItems(api, q, CHOICES + 1);
  // A scanned or typed code that is exactly one item's SKU or barcode is that item.
  const exact = found.filter((v) => v.sku === q || v.barcode === q);
  if (exact.length === 1) return { kind: "item", variant: exact[0] };
  if (found.length === 1) return { kind: "item", variant: found[0] };
  if (found.length === 0)
    return { kind: "none", message: `matches nothing: no item has “${q}” in its title, SKU or barcode.` };
  return { kind: "choose", choices: found.slice(0, CHOICES) };
}

/**
 * The field: a text input named `name` (id `id`), its error once, and the choice among several matches
 * (radio buttons named `${name}_variant`).
 */
export function itemField(options: {
  id: string;
  name: string;
  label: string;
  value: string;
  picked?: PickedItem | null;
}): SafeHtml {
  const { id, name, label, value, picked } = options;
  const error =
    picked?.kind === "none"
      ? picked.message
      : picked?.kind === "choose"
        ? "matches several items: choose one."
        : null;
  return html`<div class="field item-field"><label for="${id}">${label} <span class="hint">(SKU, barcode or words of the title)</span></label>
<input type="search" id="${id}" name="${name}" value="${value}" autocomplete="off" maxlength="200"${
    error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ""
  }>
${error ? html`<p class="field-error" id="${id}-error">${label} ${error}</p>` : ""}
${
  picked?.kind === "choose"
    ? html`<fieldset class="choices"><legend>Which item did you mean?</legend>${picked.choices.map(
        (v, i) =>
          html`<div class="check"><input type="radio" id="${id}-choice-${i}" name="${name}_variant" value="${v.id}"${i === 0 ? html` required` : ""}> <label for="${id}-choice-${i}">${itemLabel(v)}${
            v.sku || v.barcode
              ? html` <span class="muted">${[v.sku, v.barcode].filter(Boolean).join(" · ")}</span>`
              : ""
          }</label></div>`,
      )}</fieldset>`
    : ""
}</div>`;
}
