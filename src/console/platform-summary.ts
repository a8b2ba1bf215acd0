import { html, type SafeHtml } from "../html/template.ts";
import type { ShopifyState, StoreSummary } from "./context.ts";
import { dl } from "./layout.ts";

/**
 * The store's platform as the console shows it, in one place: the few words of the stores list
 * ("Shopify, connected"), and the section the store's overview, its General settings and the platform
 * sync page head with (a Shopify shop's state, or what the simulated platform is).
 */

type PlatformOf = Pick<StoreSummary, "platform" | "shopify"> & { timezone?: string };

const SHOPIFY_WORDS: Record<ShopifyState["status"], string> = {
  importing: "importing",
  connected: "connected",
  disconnected: "disconnected",
};

/** The platform in a few words, for a table cell. */
export function platformName(store: PlatformOf): string {
  if (store.shopify) return `Shopify, ${SHOPIFY_WORDS[store.shopify.status]}`;
  return store.platform === "simulated" ? "Simulated platform" : store.platform;
}

/** A Shopify store's shop: where its import stands, when it last heard from Shopify, why it is disconnected. */
function shopifySection(shop: ShopifyState, timeZone: string | undefined): SafeHtml {
  const status =
    shop.status === "disconnected"
      ? html`<span class="state-off">Disconnected</span>${shop.disconnected_reason ? `: ${shop.disconnected_reason}` : ""}`
      : shop.status === "importing"
        ? html`<span class="state-off">Importing</span> the shop's catalog`
        : html`<span class="state-on">Connected</span>`;
  return html`<h2 id="shopify">Shopify</h2>
${shop.status === "disconnected" ? html`<p class="notice" role="status">Stock changes wait until the shop is reconnected (a new access token, or installing the app again); the catalog stays readable.</p>` : ""}
${dl(
  [
    ["Shop", shop.shop],
    ["Status", status],
    ["Import error", shop.import_error],
    ["Imported", shop.imported_at],
    ["Last webhook", shop.last_webhook_at],
    ["Last reconciliation", shop.last_reconciled_at],
    ["API version", shop.api_version],
    ["Scopes", shop.scopes],
  ],
  timeZone,
)}`;
}

/** Which platform the store runs on and, for a Shopify shop, where it stands: a section of its own. */
export function platformSummary(store: PlatformOf): SafeHtml {
  if (store.shopify) return shopifySection(store.shopify, store.timezone);
  return html`<h2 id="platform">Platform</h2>
<p>${
    store.platform === "simulated"
      ? "Simulated platform: a stand-in shop inside Stockroom, for trying it out. Stock moves reach it through the same queue a real shop's would."
      : store.platform
  }</p>`;
}
