/**
 * The Shopify OAuth install in tests: a service configured as the stand-in's app (SHOPIFY_API_KEY,
 * SECRET, APP_URL, ADMIN_ORIGIN), and a merchant's browser going through install → authorize →
 * callback. The stand-in runs on the service's ManualClock, so tokens expire when the test says.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../src/clock.ts";
import { type ShopifyStandin, startShopifyStandin } from "../shopify-standin/index.ts";
import { type HttpResult, startTestApp, type TestApp, type TestAppOptions } from "./app.ts";

/** The service's public base URL as the app is configured (the browser is the test: nothing listens there). */
export const APP_URL = "http://stockroom.test";

export interface OAuthSetup {
  app: TestApp;
  standin: ShopifyStandin;
  clock: ManualClock;
  close(): Promise<void>;
}

export async function startOAuthSetup(options: TestAppOptions = {}): Promise<OAuthSetup> {
  const clock = new ManualClock("2026-11-02T10:00:00Z");
  const standin = await startShopifyStandin({ now: () => clock.now().getTime() });
  const app = await startTestApp({
    clock,
    ...options,
    env: {
      SHOPIFY_API_KEY: standin.apiKey,
      SHOPIFY_API_SECRET: standin.apiSecret,
      SHOPIFY_APP_URL: APP_URL,
      SHOPIFY_ADMIN_ORIGIN: standin.origin,
      ...options.env,
    },
  });
  return {
    app,
    standin,
    clock,
    async close() {
      await app.close();
      await standin.close();
    },
  };
}

/** GET /shopify/install for `shop`: the 302 answered. */
export function install(app: TestApp, shop: string): Promise<HttpResult> {
  return app.client().get(`/shopify/install?shop=${encodeURIComponent(shop)}`);
}

/**
 * The merchant installs and approves: the service's redirect is followed to the stand-in's authorize
 * page, which redirects back to the callback. Answers the callback's path and query as the browser
 * would request it from the service.
 */
export async function approvedCallback(setup: OAuthSetup, shop: string): Promise<string> {
  setup.standin.installingShop = shop;
  const started = await install(setup.app, shop);
  assert.equal(started.status, 302, JSON.stringify(started.body));
  const authorize = await fetch(String(started.headers.location), { redirect: "manual" });
  assert.equal(authorize.status, 302, await authorize.text());
  const callback = new URL(authorize.headers.get("location")!);
  assert.equal(callback.origin, APP_URL);
  return `${callback.pathname}${callback.search}`;
}

/** The whole install: the callback's answer. */
export async function installShop(setup: OAuthSetup, shop: string): Promise<HttpResult> {
  return setup.app.client().get(await approvedCallback(setup, shop));
}
