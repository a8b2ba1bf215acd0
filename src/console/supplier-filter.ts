import { html, type SafeHtml } from "../html/template.ts";
import { AdminError } from "./admin.ts";
import { searchable } from "./item-search.ts";
import type { StoreApi } from "./store-api.ts";

/**
 * A supplier named by what the merchant types, for a filter that must reach every supplier of the
 * store (600 of them as well as 6): the name, or words of it, resolved on the server by the API's
 * supplier search (`GET /v2/suppliers?q=`) and its whole-name filter (`name=`), so the form is a plain
 * text field that works without script and the page never lists the store's suppliers. A link (a page
 * of results, a choice) names the supplier by id instead. The name typed in full is that supplier
 * however many other names start with it; one match is the supplier; several are offered as links;
 * none is said in the user's words.
 */

export interface SupplierRef {
  id: number;
  name: string;
  archived: boolean;
  currency: string | null;
}

export type SupplierFilter =
  | { kind: "any" }
  | { kind: "supplier"; supplier: SupplierRef }
  | { kind: "choose"; text: string; choices: SupplierRef[]; more: boolean }
  | { kind: "none"; text: string; message: string };

/** The choices offered when the text names several suppliers. */
const CHOICES = 10;
/** One page of the API's word search, whose matches are offered by name when the text is no whole name. */
const SCAN = 250;
/** The longest name a supplier has (SupplierInput's). */
const MAX_NAME = 255;

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * The supplier a filter names: by `text` (typed; wins, as the form sends it) or by `idText` (a link).
 * `archived` is the API's supplier filter ("all": archived suppliers can be named too).
 */
export async function resolveSupplier(
  api: StoreApi,
  text: string,
  idText: string,
  archived: "all" | "" = "all",
): Promise<SupplierFilter> {
  const typed = text.trim();
  if (typed === "" && idText === "") return { kind: "any" };
  if (typed === "") {
    if (ID.test(idText)) {
      try {
        const { data } = await api.get<{ data: SupplierRef }>(`/suppliers/${idText}`);
        return { kind: "supplier", supplier: data };
      } catch (error) {
        if (!(error instanceof AdminError && error.status === 404)) throw error;
      }
    }
    return { kind: "none", text: "", message: "is not a supplier of this store: type its name." };
  }
  const q = searchable(typed);
  if (q === null)
    return { kind: "none", text: typed, message: "needs letters or digits of a supplier's name." };
  const list = (params: Record<string, string>) =>
    api
      .get<{ data: SupplierRef[] }>(
        `/suppliers?${new URLSearchParams({ ...params, ...(archived !== "" && { archived }) })}`,
      )
      .then((page) => page.data);
  // The whole name by the API's exact filter, beside the word search: among a thousand suppliers whose
  // names start with it, the one typed in full is still found.
  const [exact, found] = await Promise.all([
    typed.length <= MAX_NAME ? list({ name: typed, limit: String(CHOICES + 1) }) : Promise.resolve([]),
    list({ q, limit: String(SCAN) }),
  ]);
  if (exact.length === 1) return { kind: "supplier", supplier: exact[0] };
  if (exact.length === 0 && found.length === 1) return { kind: "supplier", supplier: found[0] };
  if (exact.length === 0 && found.length === 0)
    return { kind: "none", text: typed, message: `“${typed}” matches no supplier's name.` };
  // Several: the same name twice (an archived duplicate) first, else every match, by name.
  const offered = (exact.length > 1 ? exact : found).sort((a, b) => a.name.localeCompare(b.name));
  return { kind: "choose", text: typed, choices: offered.slice(0, CHOICES), more: offered.length > CHOICES };
}

const ID = /^[1-9]\d{0,9}$/;

/**
 * The supplier a form names (the order editor: the whole draft travels in the form): the one chosen
 * among offered ones, else the one it held while the text is still that supplier's name (or empty),
 * else the text, resolved among active suppliers (an order is raised with an active supplier).
 */
export async function pickSupplier(
  api: StoreApi,
  text: string,
  idText: string,
  choiceText: string,
): Promise<SupplierFilter> {
  if (ID.test(choiceText)) {
    const chosen = await resolveSupplier(api, "", choiceText);
    if (chosen.kind === "supplier") return chosen;
  }
  if (ID.test(idText)) {
    const held = await resolveSupplier(api, "", idText);
    if (held.kind === "supplier" && (text.trim() === "" || sameName(text, held.supplier.name))) return held;
  }
  return resolveSupplier(api, text, "", "");
}

/** What is wrong with the text, in the user's words after the field's label; null when it names one. */
export function supplierProblem(filter: SupplierFilter): string | null {
  return filter.kind === "none"
    ? filter.message
    : filter.kind === "choose"
      ? `“${filter.text}” matches several suppliers: choose one.`
      : null;
}

/** The text the field shows: the supplier's name once resolved, else what was typed. */
export function supplierFieldValue(filter: SupplierFilter): string {
  return filter.kind === "supplier" ? filter.supplier.name : filter.kind === "any" ? "" : filter.text;
}

/** The field: a text input named `name` (id `id`) and its error, once. */
export function supplierFilterField(options: {
  id: string;
  name: string;
  label: string;
  filter: SupplierFilter;
}): SafeHtml {
  const { id, name, label, filter } = options;
  const problem = supplierProblem(filter);
  const error = problem === null ? null : `${label} ${problem}`;
  return html`<div class="field supplier-filter"><label for="${id}">${label}</label>
<input type="search" id="${id}" name="${name}" value="${supplierFieldValue(filter)}" placeholder="Any supplier" maxlength="200" autocomplete="off"${
    error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ""
  }>
${error ? html`<p class="field-error" id="${id}-error">${error}</p>` : ""}</div>`;
}

/** For several matches, the suppliers as links (`linkTo` makes each one's address); else nothing. */
export function supplierChoices(
  filter: SupplierFilter,
  linkTo: (supplier: SupplierRef) => string,
): SafeHtml | "" {
  if (filter.kind !== "choose") return "";
  return html`<nav class="supplier-choices" aria-label="Suppliers matching “${filter.text}”"><p>Which supplier did you mean?</p><ul>${filter.choices.map(
    (s) =>
      html`<li><a href="${linkTo(s)}">${s.name}</a>${s.archived ? html` <span class="badge">archived</span>` : ""}</li>`,
  )}${filter.more ? html`<li class="hint">More suppliers match: type more of the name.</li>` : ""}</ul></nav>`;
}

/**
 * The order editor's field: the supplier's name typed, the id it resolved to kept beside it, its error
 * once (`error`: the page's own message for the field, else what is wrong with the text), and for
 * several matches a choice among them (radio buttons named `supplier_choice`).
 */
export function supplierPickField(options: {
  id: string;
  label: string;
  filter: SupplierFilter;
  error: string | null;
}): SafeHtml {
  const { id, label, filter } = options;
  const problem = supplierProblem(filter);
  const error = options.error ?? (problem === null ? null : `${label} ${problem}`);
  return html`<div class="field supplier-pick"><label for="${id}">${label}</label>
<input type="search" id="${id}" name="supplier" value="${supplierFieldValue(filter)}" required maxlength="200" autocomplete="off" placeholder="Type the supplier's name"${
    error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ""
  }>
<input type="hidden" name="supplier_id" value="${filter.kind === "supplier" ? String(filter.supplier.id) : ""}">
${error ? html`<p class="field-error" id="${id}-error">${error}</p>` : ""}${
  filter.kind === "choose"
    ? html`<fieldset class="choices"><legend>Which supplier did you mean?</legend>${filter.choices.map(
        (s, i) =>
          html`<div class="check"><input type="radio" id="${id}-choice-${i}" name="supplier_choice" value="${s.id}"> <label for="${id}-choice-${i}">${s.name}${s.archived ? html` <span class="badge">archived</span>` : ""}</label></div>`,
      )}${filter.more ? html`<p class="hint">More suppliers match: type more of the name.</p>` : ""}</fieldset>`
    : ""
}</div>`;
}
