import { html, SafeHtml } from "../html/template.ts";
import type { ErrorDetail } from "./admin.ts";
import { consoleCss, consoleIcon, consoleJs } from "./assets.ts";
import type { Flash, Session } from "./session.ts";
import { shownDate, shownTime } from "./times.ts";

/** The frame of every console page, and the small building blocks pages share. */

export interface StoreRef {
  id: number;
  name: string;
  /** IANA zone the store's moments are shown in (times.ts); absent where the page does not know it. */
  timezone?: string;
}

export type StoreTab =
  | "overview"
  | "keys"
  | "request_log"
  | "webhooks"
  | "sync"
  | "alert_rules"
  | "purchase_orders"
  | "staff"
  | "suppliers"
  | "settings"
  | "stock";

/**
 * `settings`: the store's settings, shown to its owner and the operator only. Keys, the request log,
 * webhooks, staff and the platform's sync are pages of the one Settings area (settings-nav.ts).
 */
const STORE_TABS: { tab: StoreTab; label: string; path: string; settings?: true }[] = [
  { tab: "overview", label: "Overview", path: "" },
  { tab: "stock", label: "Stock", path: "/stock" },
  { tab: "alert_rules", label: "Alert rules", path: "/alert_rules" },
  { tab: "purchase_orders", label: "Purchase orders", path: "/purchase_orders" },
  { tab: "suppliers", label: "Suppliers", path: "/suppliers" },
  { tab: "settings", label: "Settings", path: "/settings", settings: true },
];

/** Whether the session sees the store's settings (the operator, or the store's owner). */
export function seesSettings(session: Session | null): boolean {
  return session !== null && (session.actor.kind === "operator" || session.actor.role === "owner");
}

/** Where "home" is: the store list for the operator, a staff member's own store. */
export function homePath(session: Session | null): string {
  return session?.actor.kind === "staff" ? storePath(session.actor.storeId) : "/console/stores";
}

export interface PageOptions {
  title: string;
  session: Session | null;
  body: SafeHtml;
  store?: StoreRef;
  tab?: StoreTab;
  /** One-shot messages to show above the content. */
  flash?: Flash[];
}

export function csrfField(session: Session): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${session.csrf}">`;
}

export function storePath(storeId: number, rest = ""): string {
  return `/console/stores/${storeId}${rest}`;
}

export function page(options: PageOptions): string {
  const { session, store, tab } = options;
  const title = store ? `${options.title} · ${store.name}` : options.title;
  const who =
    session?.actor.kind === "staff"
      ? html`<p class="who">${session.actor.email} <span class="muted">(${session.actor.role})</span></p>`
      : "";
  const header = html`<header class="top">
  <a class="brand" href="${homePath(session)}">Stockroom console</a>
  ${
    session
      ? html`${
          session.actor.kind === "operator"
            ? html`<nav aria-label="Main"><a href="/console/stores"${!store && options.title === "Stores" ? html` aria-current="page"` : ""}>Stores</a></nav>`
            : who
        }
  <form method="post" action="/console/logout" class="logout">${csrfField(session)}<button type="submit">Sign out</button></form>`
      : ""
  }
</header>`;
  const storeNav = store
    ? html`<nav class="tabs" aria-label="Store ${store.name}">
  <p class="store-name">Store <strong>${store.name}</strong></p>
  <ul>${STORE_TABS.filter((t) => !t.settings || seesSettings(session)).map(
    (t) =>
      html`<li><a href="${storePath(store.id, t.path)}"${t.tab === tab ? html` aria-current="page"` : ""}>${t.label}</a></li>`,
  )}</ul>
</nav>`
    : "";
  const flashes = (options.flash ?? []).map((f) =>
    f.kind === "error"
      ? html`<div class="flash flash-error" role="alert">${f.text}</div>`
      : html`<div class="flash flash-ok" role="status">${f.text}</div>`,
  );
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Stockroom</title>
<link rel="icon" type="image/svg+xml" href="${consoleIcon.href}">
<link rel="stylesheet" href="${consoleCss.href}">
<script src="${consoleJs.href}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${header}
${storeNav}
<main id="main" tabindex="-1">
<h1>${options.title}</h1>
${flashes}
${options.body}
</main>
</body>
</html>
`.value;
}

export interface Column<T> {
  header: string;
  cell: (row: T) => SafeHtml | string | number | boolean | readonly string[] | null | undefined;
  numeric?: boolean;
}

export interface TableOptions {
  /**
   * On a phone (console.css, `table.cards`) each row is a card: the first column its heading, every
   * other cell under its column's name, so no column is cut off or hidden behind a scroll.
   */
  cards?: boolean;
}

/** A semantic table: caption, header cells with scope, an empty-state row. */
export function table<T>(
  caption: string,
  columns: Column<T>[],
  rows: readonly T[],
  empty = "Nothing yet.",
  timeZone?: string,
  options: TableOptions = {},
): SafeHtml {
  const cell = (c: Column<T>, row: T, index: number) => {
    const value = valueHtml(c.cell(row), timeZone);
    if (!options.cards) return html`<td${c.numeric ? html` class="num"` : ""}>${value}</td>`;
    // A card's cell is a grid of its label and one box: the value in a span, however many parts it has.
    return index === 0
      ? html`<th scope="row">${value}</th>`
      : html`<td${c.numeric ? html` class="num"` : ""} data-label="${c.header}"><span>${value}</span></td>`;
  };
  return html`<div class="table-wrap"><table${options.cards ? html` class="cards"` : ""}>
<caption>${caption}</caption>
<thead><tr>${columns.map((c) => html`<th scope="col"${c.numeric ? html` class="num"` : ""}>${c.header}</th>`)}</tr></thead>
<tbody>${
    rows.length === 0
      ? html`<tr><td colspan="${columns.length}" class="empty">${empty}</td></tr>`
      : rows.map((row) => html`<tr>${columns.map((c, i) => cell(c, row, i))}</tr>`)
  }</tbody>
</table></div>`;
}

/** A value for a cell: null as a dash, timestamps as <time>, booleans as Yes/No, arrays joined. */
export function valueHtml(value: unknown, timeZone?: string): SafeHtml | string {
  if (value === null || value === undefined || value === "")
    return html`<span class="muted" aria-label="none">–</span>`;
  if (value instanceof SafeHtml) return value;
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (Array.isArray(value))
    return value.length === 0 ? html`<span class="muted">–</span>` : value.map(String).join(", ");
  if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value))
    return timeHtml(value, timeZone);
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/**
 * A moment as <time>: its instant in `datetime`, "26 Nov 2026, 11:04" in the store's time zone as text
 * (times.ts); without a zone (admin pages) in UTC, saying so.
 */
export function timeHtml(iso: string | null | undefined, timeZone?: string | null): SafeHtml {
  if (!iso) return html`<span class="muted">–</span>`;
  const shown = shownTime(iso, timeZone);
  return shown === null ? html`${iso}` : html`<time datetime="${iso}">${shown}</time>`;
}

/**
 * A calendar day as <time>: "2031-05-10" in `datetime`, "10 May 2031" as text (times.ts); a dash for
 * none, and a value that is no such day as it came.
 */
export function dateHtml(day: string | null | undefined): SafeHtml {
  if (!day) return html`<span class="muted" aria-label="none">–</span>`;
  const shown = shownDate(day);
  return shown === null ? html`${day}` : html`<time datetime="${day}">${shown}</time>`;
}

/**
 * A POST button form carrying the CSRF token (e.g. revoke, retry, redeliver). `name` is the button's
 * accessible name when its visible label alone would not say what it acts on (one "Remove" per row).
 */
export function actionButton(
  session: Session,
  action: string,
  label: string,
  extra?: { name: string; value: string },
  name?: string,
): SafeHtml {
  return html`<form method="post" action="${action}" class="inline">${csrfField(session)}${
    extra ? html`<input type="hidden" name="${extra.name}" value="${extra.value}">` : ""
  }<button type="submit"${name ? html` aria-label="${name}"` : ""}>${label}</button></form>`;
}

/** The admin API's 422 details as an alert listing every field problem. */
export function errorSummary(message: string, details: ErrorDetail[]): SafeHtml {
  return html`<div class="flash flash-error" role="alert"><p>${message}</p>${
    details.length > 0
      ? html`<ul>${details.map((d) => html`<li><strong>${d.field}</strong>: ${d.message}</li>`)}</ul>`
      : ""
  }</div>`;
}

export function notAvailable(feature: string): SafeHtml {
  return html`<div class="notice" role="status"><p><strong>${feature} is not available yet.</strong></p>
<p>This build of the service does not include the part of the admin API behind this page. It appears here as soon as the feature is deployed; nothing is wrong with your store.</p></div>`;
}

export function dl(
  pairs: [string, SafeHtml | string | number | boolean | readonly string[] | null | undefined][],
  timeZone?: string,
): SafeHtml {
  return html`<dl class="pairs">${pairs.map(([k, v]) => html`<div><dt>${k}</dt><dd>${valueHtml(v, timeZone)}</dd></div>`)}</dl>`;
}
