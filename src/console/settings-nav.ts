import { html, type SafeHtml } from "../html/template.ts";
import { storePath } from "./layout.ts";

/**
 * The store's settings, one area a merchant finds under the "Settings" tab: its owner's (and the
 * operator's) pages, each with this list beside it. Other roles see neither the tab nor the pages (403).
 */
export type SettingsSection =
  | "general"
  | "tax_rates"
  | "exchange_rates"
  | "locations"
  | "keys"
  | "request_log"
  | "webhooks"
  | "staff"
  | "platform";

const SECTIONS: { section: SettingsSection; label: string; path: string; hint: string }[] = [
  { section: "general", label: "General", path: "/settings", hint: "API access, order numbering" },
  { section: "tax_rates", label: "Tax rates", path: "/settings/tax_rates", hint: "the rates orders offer" },
  {
    section: "exchange_rates",
    label: "Exchange rates",
    path: "/settings/exchange_rates",
    hint: "other currencies in the store's",
  },
  {
    section: "locations",
    label: "Locations",
    path: "/settings/locations",
    hint: "which locations orders and the API use",
  },
  { section: "keys", label: "API keys", path: "/keys", hint: "keys for integrations" },
  { section: "request_log", label: "Request log", path: "/request_log", hint: "calls made with the keys" },
  { section: "webhooks", label: "Webhooks", path: "/webhooks", hint: "endpoints told of changes" },
  { section: "staff", label: "Staff", path: "/staff", hint: "who works here, in which role" },
  { section: "platform", label: "Platform sync", path: "/sync", hint: "the shop's state and sync queue" },
];

/** The settings area's own navigation, shown at the top of each of its pages. */
export function settingsNav(storeId: number, current: SettingsSection): SafeHtml {
  return html`<nav class="subnav" aria-label="Settings">
<ul>${SECTIONS.map(
    (s) =>
      html`<li><a href="${storePath(storeId, s.path)}"${s.section === current ? html` aria-current="page"` : ""}>${s.label}</a></li>`,
  )}</ul>
</nav>`;
}

/** The settings sections with what each is for (the General page lists them). */
export function settingsIndex(storeId: number): SafeHtml {
  return html`<ul class="settings-index">${SECTIONS.filter((s) => s.section !== "general").map(
    (s) =>
      html`<li><a href="${storePath(storeId, s.path)}">${s.label}</a> <span class="hint">${s.hint}</span></li>`,
  )}</ul>`;
}
