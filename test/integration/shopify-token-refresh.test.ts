/**
 * An OAuth shop's expiring offline token (issue 19 item 2; decisions section 12): the code exchanged
 * with `expiring: 1`, refreshed before a call when it is about to expire and by the periodic pass, once
 * after a 401, and the shop `disconnected` when Shopify refuses the refresh (or a custom app's token,
 * which has nothing to refresh with). Against the stand-in, on the service's ManualClock.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { PlatformPermanentError } from "../../src/platform/connector.ts";
import { InProcessCostBudget } from "../../src/platform/shopify/budget.ts";
import { ShopifyClient } from "../../src/platform/shopify/client.ts";
import { ShopifyUnauthorizedError } from "../../src/platform/shopify/errors.ts";
import { shopifyDispatcherOf } from "../../src/platform/shopify/http.ts";
import {
  exchangeAuthorizationCode,
  type GrantedTokens,
  ShopifyGrantRefusedError,
} from "../../src/platform/shopify/oauth-tokens.ts";
import { findShopByStore, insertShop, openShopTokens } from "../../src/platform/shopify/shops.ts";
import {
  REFRESH_REFUSED_REASON,
  refreshExpiringTokens,
  refreshShopTokens,
  storedTokenSource,
  TOKEN_REFUSED_REASON,
} from "../../src/platform/shopify/token-refresh.ts";
import { type OAuthSetup, startOAuthSetup } from "../helpers/shopify-install.ts";

const MINUTE = 60_000;
let setup: OAuthSetup;

before(async () => {
  setup = await startOAuthSetup();
});
after(() => setup.close());

const ctx = () => setup.app.runtime.ctx;

/** The stand-in's merchant approves an install of `domain`: the code its callback would carry. */
async function approvedCode(domain: string): Promise<string> {
  setup.standin.installingShop = domain;
  const url = new URL(`${setup.standin.origin}/admin/oauth/authorize`);
  url.searchParams.set("client_id", setup.standin.apiKey);
  url.searchParams.set("scope", "read_products,write_inventory");
  url.searchParams.set("redirect_uri", "http://stockroom.test/shopify/callback");
  const answer = await fetch(url, { redirect: "manual" });
  return new URL(answer.headers.get("location")!).searchParams.get("code")!;
}

function exchange(domain: string, code: string): Promise<GrantedTokens> {
  return exchangeAuthorizationCode(domain, code, {
    settings: ctx().config.shopify,
    app: { apiKey: setup.standin.apiKey, apiSecret: setup.standin.apiSecret },
    dispatcher: shopifyDispatcherOf(ctx()),
    now: ctx().clock.now(),
  });
}

let shops = 0;

/** A store whose shop was installed by OAuth just now: its id, domain and the tokens granted. */
async function installedStore(tokens?: GrantedTokens) {
  const domain = `shop-${++shops}.myshopify.com`;
  setup.standin.addShop(domain, { name: `Shop ${shops}` });
  const granted = tokens ?? (await exchange(domain, await approvedCode(domain)));
  const store = await setup.app.createStore();
  await insertShop(ctx().db, ctx(), {
    storeId: store.id,
    shop: domain,
    apiVersion: "2026-10",
    scopes: granted.scopes,
    tokens: granted,
    status: "connected",
  });
  return { storeId: store.id, domain, granted };
}

async function tokensOf(storeId: number) {
  const row = await findShopByStore(ctx().db, storeId);
  assert.ok(row);
  return { row, ...openShopTokens(ctx(), row) };
}

/** A client of the store's shop taking its token from the row. */
function clientOf(storeId: number, domain: string) {
  return new ShopifyClient({
    shop: domain,
    accessToken: storedTokenSource(ctx(), storeId),
    settings: ctx().config.shopify,
    budget: new InProcessCostBudget(() => ctx().clock.now().getTime()),
    dispatcher: shopifyDispatcherOf(ctx()),
  });
}

const SHOP_NAME = "query Shop { shop { name } }";

describe("the code exchange", () => {
  beforeEach(() => setup.clock.set("2026-11-02T10:00:00Z"));

  it("answers an expiring offline token: one hour, with a 90-day refresh token and the scopes granted", async () => {
    setup.standin.addShop("exchange.myshopify.com");
    const tokens = await exchange("exchange.myshopify.com", await approvedCode("exchange.myshopify.com"));
    assert.match(tokens.accessToken, /^shpat_/);
    assert.match(tokens.refreshToken ?? "", /^shprt_/);
    assert.equal(tokens.accessTokenExpiresAt?.toISOString(), "2026-11-02T11:00:00.000Z");
    assert.equal(tokens.refreshTokenExpiresAt?.toISOString(), "2027-01-31T10:00:00.000Z");
    assert.deepEqual(tokens.scopes, ["read_products", "write_inventory"]);
  });

  it("a code used once is refused the second time, as a grant refusal (not an outage)", async () => {
    setup.standin.addShop("twice.myshopify.com");
    const code = await approvedCode("twice.myshopify.com");
    await exchange("twice.myshopify.com", code);
    await assert.rejects(
      exchange("twice.myshopify.com", code),
      (error: Error) =>
        error instanceof ShopifyGrantRefusedError &&
        error instanceof PlatformPermanentError &&
        error.message === "Shopify refused the token request for twice.myshopify.com (invalid_grant)",
    );
  });
});

describe("refreshing", () => {
  beforeEach(() => setup.clock.set("2026-11-02T10:00:00Z"));

  it("a call made while the token has more than 5 minutes left uses it as it is", async () => {
    const { storeId, domain, granted } = await installedStore();
    setup.clock.advance(54 * MINUTE);
    const answer = await clientOf(storeId, domain).graphql<{ shop: { name: string } }>(SHOP_NAME, {}, 1);
    assert.equal(answer.data.shop.name, `Shop ${shops}`);
    const stored = await tokensOf(storeId);
    assert.equal(stored.accessToken, granted.accessToken);
    assert.equal(stored.refreshToken, granted.refreshToken);
  });

  it("a call made within 5 minutes of the expiry refreshes first and goes with the new token", async () => {
    const { storeId, domain, granted } = await installedStore();
    setup.clock.advance(56 * MINUTE);
    const answer = await clientOf(storeId, domain).graphql<{ shop: { name: string } }>(SHOP_NAME, {}, 1);
    assert.equal(answer.data.shop.name, `Shop ${shops}`);
    const stored = await tokensOf(storeId);
    assert.notEqual(stored.accessToken, granted.accessToken);
    assert.notEqual(stored.refreshToken, granted.refreshToken);
    assert.equal(stored.accessTokenExpiresAt?.toISOString(), "2026-11-02T11:56:00.000Z");
    assert.equal(stored.row.status, "connected");
    // The new token is the one Shopify knows now: it outlives the old one's hour.
    setup.clock.advance(30 * MINUTE);
    assert.equal(setup.standin.tokens.grantOf(granted.accessToken), null);
    assert.equal(setup.standin.tokens.grantOf(stored.accessToken)?.shop.domain, domain);
  });

  it("the periodic pass refreshes tokens expiring within 15 minutes and leaves the others", async () => {
    const soon = await installedStore();
    setup.clock.advance(20 * MINUTE);
    const later = await installedStore();
    setup.clock.advance(26 * MINUTE); // soon: 14 minutes left; later: 34
    await refreshExpiringTokens(ctx());
    const refreshed = await tokensOf(soon.storeId);
    assert.notEqual(refreshed.accessToken, soon.granted.accessToken);
    assert.equal(refreshed.accessTokenExpiresAt?.toISOString(), "2026-11-02T11:46:00.000Z");
    const untouched = await tokensOf(later.storeId);
    assert.equal(untouched.accessToken, later.granted.accessToken);
    assert.equal(untouched.refreshToken, later.granted.refreshToken);
  });

  it("a 401 to a token thought valid is refreshed once and the call goes through", async () => {
    const { storeId, domain, granted } = await installedStore();
    // The stored expiry says an hour is left, but Shopify no longer takes the token (it expired).
    const { row } = await tokensOf(storeId);
    await ctx()
      .db.updateTable("shopify_shops")
      .set({ access_token_expires_at: new Date(Date.parse("2026-11-02T13:00:00Z")) })
      .where("store_id", "=", row.store_id)
      .execute();
    setup.clock.advance(61 * MINUTE);
    const answer = await clientOf(storeId, domain).graphql<{ shop: { name: string } }>(SHOP_NAME, {}, 1);
    assert.equal(answer.data.shop.name, `Shop ${shops}`);
    const stored = await tokensOf(storeId);
    assert.notEqual(stored.accessToken, granted.accessToken);
    assert.equal(stored.row.status, "connected");
  });

  it("a 401 whose refresh Shopify refuses leaves the shop disconnected, saying why", async () => {
    const { storeId, domain } = await installedStore();
    setup.standin.tokens.revoke(setup.standin.shops.get(domain)!);
    await assert.rejects(clientOf(storeId, domain).graphql(SHOP_NAME, {}, 1), ShopifyUnauthorizedError);
    const { row } = await tokensOf(storeId);
    assert.equal(row.status, "disconnected");
    assert.equal(row.disconnected_reason, REFRESH_REFUSED_REASON);
  });

  it("a 401 to a custom app's token (nothing to refresh it with) disconnects the shop", async () => {
    const domain = `custom-${++shops}.myshopify.com`;
    const { accessToken } = setup.standin.addShop(domain);
    const store = await setup.app.createStore();
    await insertShop(ctx().db, ctx(), {
      storeId: store.id,
      shop: domain,
      apiVersion: "2026-10",
      scopes: [],
      tokens: { accessToken, accessTokenExpiresAt: null, refreshToken: null, refreshTokenExpiresAt: null },
      status: "connected",
    });
    setup.standin.tokens.revoke(setup.standin.shops.get(domain)!);
    await assert.rejects(clientOf(store.id, domain).graphql(SHOP_NAME, {}, 1), ShopifyUnauthorizedError);
    const { row } = await tokensOf(store.id);
    assert.equal(row.status, "disconnected");
    assert.equal(row.disconnected_reason, TOKEN_REFUSED_REASON);
  });

  it("a refresh started from a row another process refreshed meanwhile keeps that process's tokens", async () => {
    const { storeId } = await installedStore();
    const { row: stale } = await tokensOf(storeId);
    const winner = await refreshShopTokens(ctx(), stale);
    assert.ok(winner);
    const kept = await refreshShopTokens(ctx(), stale);
    assert.equal(kept?.access_token_sealed, winner.access_token_sealed);
    const stored = await tokensOf(storeId);
    assert.equal(stored.row.access_token_sealed, winner.access_token_sealed);
    assert.equal(stored.row.status, "connected");
  });
});
