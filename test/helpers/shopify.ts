/**
 * A service wired to a Shopify stand-in (SHOPIFY_ADMIN_ORIGIN), and attaching a stand-in shop to a new
 * store by token through the admin API, as a merchant with a custom app would.
 */

import { type ShopifyStandin, type StandinOptions, startShopifyStandin } from "../shopify-standin/index.ts";
import type { ShopState } from "../shopify-standin/state.ts";
import { ALL_SCOPES, type Client, startTestApp, type TestApp, type TestAppOptions } from "./app.ts";

/** Where the stand-in's webhooks would go: nothing listens there (these tests read subscriptions). */
export const TEST_APP_URL = "http://127.0.0.1:9";

export async function startShopifyTestApp(
  options: { app?: TestAppOptions; standin?: StandinOptions } = {},
): Promise<{ t: TestApp; standin: ShopifyStandin }> {
  const standin = await startShopifyStandin(options.standin);
  const t = await startTestApp({
    ...options.app,
    env: {
      SHOPIFY_ADMIN_ORIGIN: standin.origin,
      SHOPIFY_APP_URL: TEST_APP_URL,
      SHOPIFY_API_KEY: standin.apiKey,
      SHOPIFY_API_SECRET: standin.apiSecret,
      ...options.app?.env,
    },
  });
  return { t, standin };
}

let shops = 0;

/** A new shop on the stand-in (seeded as given) and its custom app's token. */
export function standinShop(
  standin: ShopifyStandin,
  seed: { products: number; variantsPerProduct?: number; locations?: number } = { products: 2 },
  details: { currency?: string; timezone?: string; name?: string } = {},
): { shop: ShopState; domain: string; accessToken: string } {
  const domain = `shop-${process.pid}-${++shops}.myshopify.com`;
  const { shop, accessToken } = standin.addShop(domain, details);
  shop.seed(seed);
  return { shop, domain, accessToken };
}

/** Attaches the shop to a new store by token (POST /admin/stores); throws unless 201. */
export async function attachByToken(t: TestApp, domain: string, accessToken: string, extra = {}) {
  const res = await t.admin.post("/admin/stores", {
    platform: "shopify",
    shopify: { shop: domain, access_token: accessToken },
    ...extra,
  });
  if (res.status !== 201) throw new Error(`attach failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { id: number; shopify: Record<string, unknown> } & Record<string, unknown>;
}

/** A full-scope API client of an attached store, its rate limits lifted as TestApp.createStore does. */
export async function storeApi(t: TestApp, storeId: number): Promise<Client> {
  await t.admin.patch(`/admin/stores/${storeId}`, {
    rate_limits: {
      per_key_per_minute: 100_000,
      per_store_per_minute: 100_000,
      writes_per_store_per_minute: 100_000,
    },
  });
  const key = await t.admin.post(`/admin/stores/${storeId}/keys`, { name: "test", scopes: ALL_SCOPES });
  if (key.status !== 201) throw new Error(`key creation failed: ${JSON.stringify(key.body)}`);
  return t.client(`Bearer ${key.body.data.key}`);
}
