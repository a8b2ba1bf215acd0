/**
 * The Shopify app's OAuth install (issue 19 item 2; decisions section 12), through HTTP against the
 * stand-in: GET /shopify/install sends the merchant to the authorize page with the app's client id,
 * scopes, redirect and a new state; GET /shopify/callback refuses a forged HMAC, a state reused,
 * expired, issued to another shop or never issued, and a code Shopify refuses, with 400 and nothing
 * written; a good callback creates the shop's store (tokens sealed, expiring, never shown) and sends
 * the browser to its console page; installing a known shop again re-attaches and reconnects it.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import {
  findShopByDomain,
  findShopByStore,
  OAUTH_STATES_PRUNE_TASK,
  openShopTokens,
  REFRESH_REFUSED_REASON,
} from "../../src/platform/shopify/index.ts";
import { ALL_SCOPES, type Client, startTestApp } from "../helpers/app.ts";
import { idempotencyKey } from "../helpers/factories.ts";
import {
  APP_URL,
  approvedCallback,
  install,
  installShop,
  type OAuthSetup,
  startOAuthSetup,
} from "../helpers/shopify-install.ts";

let setup: OAuthSetup;
let shops = 0;

before(async () => {
  setup = await startOAuthSetup();
});
after(() => setup.close());
beforeEach(() => setup.clock.advance(60_000));

const db = () => setup.app.runtime.ctx.db;

/** A shop on the stand-in, its merchant about to install the app. */
function newShop(details: { name?: string; currency?: string; timezone?: string } = {}) {
  const domain = `oauth-${++shops}.myshopify.com`;
  const { shop } = setup.standin.addShop(domain, details);
  shop.seed({ products: 2, locations: 1 });
  return { domain, shop };
}

/** What a callback could have written: stores, shops, spent states, jobs. */
async function written() {
  const count = async (table: "stores" | "shopify_shops" | "jobs") =>
    Number(
      (
        await db()
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const spent = await db()
    .selectFrom("shopify_oauth_states")
    .select("state")
    .where("used_at", "is not", null)
    .execute();
  return {
    stores: await count("stores"),
    shops: await count("shopify_shops"),
    jobs: await count("jobs"),
    spentStates: spent.length,
  };
}

/** The callback's query with one parameter changed, signed again with the app's secret. */
function resigned(callback: string, changes: Record<string, string>): string {
  const url = new URL(callback, APP_URL);
  const params: Record<string, string> = {};
  for (const [k, v] of url.searchParams) if (k !== "hmac") params[k] = v;
  Object.assign(params, changes);
  const query = new URLSearchParams(params);
  query.set("hmac", setup.standin.tokens.callbackHmac(params));
  return `${url.pathname}?${query}`;
}

function expectRefused(
  res: { status: number; body: any },
  field: string,
  code: string,
  message: string,
): void {
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.deepEqual(res.body, {
    error: { code: "bad_request", message: `${field}: ${message}`, details: [{ field, code, message }] },
  });
}

const STATE_REFUSED = "was not issued for this shop's install, was used already or is older than 10 minutes";

describe("install", () => {
  test("302 to Shopify's authorize page with the client id, the scopes, the callback and a new state", async () => {
    const { domain } = newShop();
    const res = await install(setup.app, domain);
    assert.equal(res.status, 302);
    assert.equal(res.headers["cache-control"], "no-store");
    const location = new URL(String(res.headers.location));
    assert.equal(`${location.origin}${location.pathname}`, `${setup.standin.origin}/admin/oauth/authorize`);
    const state = location.searchParams.get("state") ?? "";
    assert.match(state, /^[A-Za-z0-9_-]{32}$/);
    assert.deepEqual(Object.fromEntries(location.searchParams), {
      client_id: setup.standin.apiKey,
      scope: "read_products,read_inventory,write_inventory,read_locations",
      redirect_uri: `${APP_URL}/shopify/callback`,
      state,
    });
    const stored = await db()
      .selectFrom("shopify_oauth_states")
      .select(["shop", "created_at", "used_at"])
      .where("state", "=", state)
      .executeTakeFirstOrThrow();
    assert.deepEqual(stored, { shop: domain, created_at: setup.clock.now(), used_at: null });
  });

  test("a shop that is not a myshopify.com domain is 400 on shop and issues no state", async () => {
    const before = await db().selectFrom("shopify_oauth_states").select("state").execute();
    for (const shop of [
      "evil.example",
      "x.myshopify.com.evil.example",
      "UPPER.myshopify.com",
      "-x.myshopify.com",
      "",
    ]) {
      expectRefused(
        await install(setup.app, shop),
        "shop",
        "invalid_value",
        "must be the shop's myshopify.com domain (name.myshopify.com)",
      );
    }
    expectRefused(
      await setup.app.client().get("/shopify/install"),
      "shop",
      "invalid_value",
      "must be the shop's myshopify.com domain (name.myshopify.com)",
    );
    assert.deepEqual(await db().selectFrom("shopify_oauth_states").select("state").execute(), before);
  });
});

/** The one-time page of a store without staff, asking for the owner's email. */
const OWNER_CLAIM_PAGE = /^\/console\/welcome\/[A-Za-z0-9_-]{20,}$/;

/** The store a shop was attached to. */
async function storeOfShop(domain: string): Promise<number> {
  const row = await findShopByDomain(db(), domain);
  assert.ok(row, `no store for ${domain}`);
  return Number(row.store_id);
}

describe("callback", () => {
  test("creates the shop's store with its expiring tokens sealed, and lands on the page asking for its owner", async () => {
    const { domain, shop } = newShop({ name: "Birch & Co", currency: "EUR", timezone: "Europe/Dublin" });
    const res = await installShop(setup, domain);
    assert.equal(res.status, 302, JSON.stringify(res.body));
    const landing = String(res.headers.location);
    assert.match(
      landing,
      OWNER_CLAIM_PAGE,
      "a store without staff asks for its owner (decisions section 13)",
    );
    const claim = await setup.app.client().get(landing);
    assert.equal(claim.status, 200);
    assert.match(String(claim.body), /Birch &amp; Co/);
    const storeId = await storeOfShop(domain);

    const row = await findShopByStore(db(), storeId);
    assert.ok(row);
    const tokens = openShopTokens(setup.app.runtime.ctx, row);
    assert.equal(setup.standin.tokens.grantOf(tokens.accessToken)?.shop, shop, "the token Shopify issued");
    assert.equal(tokens.accessTokenExpiresAt?.getTime(), setup.clock.now().getTime() + 3600_000);
    assert.equal(tokens.refreshTokenExpiresAt?.getTime(), setup.clock.now().getTime() + 90 * 86400_000);
    for (const column of [row.access_token_sealed, row.refresh_token_sealed ?? ""]) {
      assert.ok(!column.includes(tokens.accessToken) && !column.includes(tokens.refreshToken ?? "-"));
    }
    assert.ok(!JSON.stringify(res.headers).includes(tokens.accessToken));

    const store = await setup.app.admin.get(`/admin/stores/${storeId}`);
    assert.equal(store.status, 200);
    const shown = JSON.stringify(store.body);
    assert.ok(!shown.includes(tokens.accessToken) && !shown.includes(tokens.refreshToken ?? "-"));
    const { name, domain: storeDomain, currency, timezone, platform, shopify } = store.body.data;
    assert.deepEqual(
      { name, domain: storeDomain, currency, timezone, platform, shopify },
      {
        name: "Birch & Co",
        domain,
        currency: "EUR",
        timezone: "Europe/Dublin",
        platform: "shopify",
        shopify: {
          shop: domain,
          api_version: "2026-10",
          scopes: ["read_products", "read_inventory", "write_inventory", "read_locations"],
          status: "importing",
          disconnected_reason: null,
          import_error: null,
          imported_at: null,
          last_webhook_at: null,
          last_reconciled_at: null,
        },
      },
    );

    await setup.app.drain();
    assert.equal(shop.subscriptions.length > 0, true, "webhooks subscribed");
    assert.ok(shop.subscriptions.every((s) => s.uri === `${APP_URL}/shopify/webhooks`));
    const imported = await setup.app.admin.get(`/admin/stores/${storeId}`);
    assert.equal(imported.body.data.shopify.status, "connected");
  });

  test("a forged hmac is 400 and writes nothing (the state stays unspent)", async () => {
    const { domain } = newShop();
    const callback = await approvedCallback(setup, domain);
    const before = await written();
    const url = new URL(callback, APP_URL);
    url.searchParams.set("timestamp", String(Number(url.searchParams.get("timestamp")) + 1));
    expectRefused(
      await setup.app.client().get(`${url.pathname}${url.search}`),
      "hmac",
      "invalid",
      "does not match the callback's parameters",
    );
    url.searchParams.delete("hmac");
    expectRefused(
      await setup.app.client().get(`${url.pathname}${url.search}`),
      "hmac",
      "required",
      "is required",
    );
    assert.deepEqual(await written(), before);
    // The genuine callback still goes through: the forgeries spent nothing.
    assert.equal((await setup.app.client().get(callback)).status, 302);
  });

  test("a state used once is refused the second time, and nothing more is written", async () => {
    const { domain } = newShop();
    const callback = await approvedCallback(setup, domain);
    assert.equal((await setup.app.client().get(callback)).status, 302);
    const before = await written();
    expectRefused(await setup.app.client().get(callback), "state", "invalid", STATE_REFUSED);
    assert.deepEqual(await written(), before);
  });

  test("a state older than 10 minutes is refused and writes nothing", async () => {
    const { domain } = newShop();
    const callback = await approvedCallback(setup, domain);
    setup.clock.advance(10 * 60_000 + 1);
    const before = await written();
    expectRefused(await setup.app.client().get(callback), "state", "invalid", STATE_REFUSED);
    assert.deepEqual(await written(), before);
  });

  test("expired states, spent or not, are deleted by the hourly pass and as a state is issued; live ones stay", async () => {
    const states = () =>
      db()
        .selectFrom("shopify_oauth_states")
        .select("state")
        .orderBy("state")
        .execute()
        .then((rows) => rows.map((r) => r.state));
    const stateOf = (callback: string) => new URL(callback, APP_URL).searchParams.get("state") ?? "";
    const spentShop = newShop();
    const spentCallback = await approvedCallback(setup, spentShop.domain);
    assert.equal((await setup.app.client().get(spentCallback)).status, 302);
    const abandoned = stateOf(await approvedCallback(setup, newShop().domain));
    setup.clock.advance(5 * 60_000);
    const live = stateOf(await approvedCallback(setup, newShop().domain));
    setup.clock.advance(5 * 60_000 + 1);
    // The spent and the abandoned states are 10 minutes and 1 ms old: no callback can use them now.
    await setup.app.runtime.worker.runPeriodic(OAUTH_STATES_PRUNE_TASK);
    const left = await states();
    assert.ok(left.includes(live), "the state issued 5 minutes ago stays");
    assert.ok(!left.includes(abandoned), "the abandoned state is gone");
    assert.ok(!left.includes(stateOf(spentCallback)), "the spent state is gone");
    assert.equal(
      (await setup.app.client().get(spentCallback)).status,
      400,
      "a pruned state is refused as one never issued",
    );
    // Issuing a state prunes too: 10 minutes on, the live one has expired and the next install drops it.
    setup.clock.advance(5 * 60_000);
    const next = stateOf(await approvedCallback(setup, newShop().domain));
    const after = await states();
    assert.ok(after.includes(next));
    assert.ok(!after.includes(live), "the state expired since is gone");
    assert.equal(
      Number(
        (
          await db()
            .selectFrom("shopify_oauth_states")
            .select((eb) => eb.fn.countAll<string>().as("n"))
            .where("created_at", "<", new Date(setup.clock.now().getTime() - 10 * 60_000))
            .executeTakeFirstOrThrow()
        ).n,
      ),
      0,
    );
  });

  test("a state issued for another shop is refused and writes nothing; that shop's install still works", async () => {
    const first = newShop();
    const second = newShop();
    const callback = await approvedCallback(setup, first.domain);
    const before = await written();
    expectRefused(
      await setup.app.client().get(resigned(callback, { shop: second.domain })),
      "state",
      "invalid",
      STATE_REFUSED,
    );
    assert.deepEqual(await written(), before);
    assert.equal((await setup.app.client().get(callback)).status, 302);
  });

  test("a state never issued is refused; a signed callback without code or with a bad shop too", async () => {
    const { domain } = newShop();
    const callback = await approvedCallback(setup, domain);
    const before = await written();
    expectRefused(
      await setup.app.client().get(resigned(callback, { state: "made-up-state" })),
      "state",
      "invalid",
      STATE_REFUSED,
    );
    expectRefused(
      await setup.app.client().get(resigned(callback, { shop: "evil.example" })),
      "shop",
      "invalid_value",
      "must be the shop's myshopify.com domain (name.myshopify.com)",
    );
    expectRefused(
      await setup.app.client().get(resigned(callback, { code: "" })),
      "code",
      "required",
      "is required",
    );
    assert.deepEqual(await written(), before);
  });

  test("a code Shopify refuses is 400 on code and creates no store", async () => {
    const { domain } = newShop();
    const callback = await approvedCallback(setup, domain);
    const before = await written();
    expectRefused(
      await setup.app.client().get(resigned(callback, { code: "not-a-code" })),
      "code",
      "invalid",
      "was refused by Shopify (invalid, expired or used)",
    );
    // Only the state is spent (the code was single use anyway): no store, no shop, no job.
    assert.deepEqual(await written(), { ...before, spentStates: before.spentStates + 1 });
  });

  test("installing a known shop again re-attaches its store and reconnects it", async () => {
    const { domain, shop } = newShop();
    const first = await installShop(setup, domain);
    assert.match(String(first.headers.location), OWNER_CLAIM_PAGE);
    const storeId = await storeOfShop(domain);
    await setup.app.drain();
    const oldToken = openShopTokens(
      setup.app.runtime.ctx,
      (await findShopByStore(db(), storeId))!,
    ).accessToken;

    // The merchant uninstalls the app: Shopify says so, revokes the tokens and drops the subscriptions.
    setup.standin.webhooks.mode = "hold";
    setup.standin.uninstall(domain);
    const [uninstalled] = setup.standin.webhooks.held.splice(0);
    setup.standin.webhooks.mode = "auto";
    const hook = await setup.app.client().post("/shopify/webhooks", uninstalled.body, {
      "content-type": "application/json",
      "x-shopify-topic": uninstalled.topic,
      "x-shopify-shop-domain": domain,
      "x-shopify-hmac-sha256": setup.standin.webhooks.sign(uninstalled.body),
      "x-shopify-event-id": uninstalled.eventId,
    });
    assert.equal(hook.status, 200);
    await setup.app.drain();
    assert.equal(
      (await setup.app.admin.get(`/admin/stores/${storeId}`)).body.data.shopify.status,
      "disconnected",
    );
    assert.equal(shop.subscriptions.length, 0);

    const stores = await written();
    const again = await installShop(setup, domain);
    assert.equal(again.status, 302, JSON.stringify(again.body));
    assert.match(String(again.headers.location), OWNER_CLAIM_PAGE, "still no owner: asked again");
    await setup.app.drain();
    const after = await setup.app.admin.get(`/admin/stores/${storeId}`);
    assert.equal(after.body.data.shopify.status, "connected");
    assert.equal(after.body.data.shopify.disconnected_reason, null);
    assert.equal((await written()).stores, stores.stores, "no second store");
    const newToken = openShopTokens(
      setup.app.runtime.ctx,
      (await findShopByStore(db(), storeId))!,
    ).accessToken;
    assert.notEqual(newToken, oldToken);
    assert.equal(setup.standin.tokens.grantOf(newToken)?.shop, shop);
    assert.ok(shop.subscriptions.length > 0, "subscriptions made again");
  });
});

describe("a late app/uninstalled", () => {
  /** Posts a delivery the stand-in held, with every header Shopify sets (X-Shopify-Triggered-At too). */
  async function deliverHeld(
    domain: string,
    event: { topic: string; body: string; eventId: string; triggeredAt: string },
  ) {
    return setup.app.client().post("/shopify/webhooks", event.body, {
      "content-type": "application/json",
      "x-shopify-topic": event.topic,
      "x-shopify-shop-domain": domain,
      "x-shopify-hmac-sha256": setup.standin.webhooks.sign(event.body),
      "x-shopify-event-id": event.eventId,
      "x-shopify-triggered-at": event.triggeredAt,
    });
  }
  const shopState = async (storeId: number) =>
    (await setup.app.admin.get(`/admin/stores/${storeId}`)).body.data.shopify;

  test("one triggered before a re-install leaves the new installation connected; a later one disconnects it", async () => {
    const { domain, shop } = newShop();
    assert.equal((await installShop(setup, domain)).status, 302);
    const storeId = await storeOfShop(domain);
    await setup.app.drain();
    assert.equal((await shopState(storeId)).status, "connected");

    // The merchant uninstalls; Shopify's delivery is held up (it retries for 48 hours).
    setup.standin.webhooks.mode = "hold";
    setup.standin.uninstall(domain);
    const [late] = setup.standin.webhooks.held.splice(0);
    setup.standin.webhooks.mode = "auto";
    assert.equal(late.topic, "app/uninstalled");
    assert.equal(late.triggeredAt, setup.clock.now().toISOString());

    // A minute later the merchant installs the app again, then the old delivery arrives.
    setup.clock.advance(60_000);
    assert.equal((await installShop(setup, domain)).status, 302);
    await setup.app.drain();
    const token = (await findShopByStore(db(), storeId))!.access_token_sealed;
    const before = await written();
    assert.equal((await deliverHeld(domain, late)).status, 200);
    await setup.app.drain();
    const after = await shopState(storeId);
    assert.equal(after.status, "connected");
    assert.equal(after.disconnected_reason, null);
    assert.equal((await findShopByStore(db(), storeId))!.access_token_sealed, token, "the new token stays");
    assert.deepEqual(await written(), before);
    assert.ok(shop.subscriptions.length > 0);

    // An uninstall of the new installation is current: it disconnects.
    setup.clock.advance(60_000);
    setup.standin.webhooks.mode = "hold";
    setup.standin.uninstall(domain);
    const [current] = setup.standin.webhooks.held.splice(0);
    setup.standin.webhooks.mode = "auto";
    assert.equal((await deliverHeld(domain, current)).status, 200);
    const gone = await shopState(storeId);
    assert.deepEqual(
      [gone.status, gone.disconnected_reason],
      ["disconnected", "The app was uninstalled from the Shopify shop."],
    );
  });

  test("one triggered in the same millisecond as the installation, or with nanoseconds after it, disconnects", async () => {
    const { domain } = newShop();
    assert.equal((await installShop(setup, domain)).status, 302);
    const storeId = await storeOfShop(domain);
    await setup.app.drain();
    const installed = setup.clock.now().toISOString();
    setup.standin.webhooks.mode = "hold";
    setup.standin.uninstall(domain);
    const [event] = setup.standin.webhooks.held.splice(0);
    setup.standin.webhooks.mode = "auto";
    // Shopify writes nanoseconds: 10:..:..123456789Z is in the installation's millisecond.
    const triggeredAt = installed.replace(/Z$/, "456789Z");
    assert.equal((await deliverHeld(domain, { ...event, triggeredAt })).status, 200);
    assert.equal((await shopState(storeId)).status, "disconnected");
  });

  test("one without X-Shopify-Triggered-At is taken as current", async () => {
    const { domain } = newShop();
    assert.equal((await installShop(setup, domain)).status, 302);
    const storeId = await storeOfShop(domain);
    await setup.app.drain();
    setup.standin.webhooks.mode = "hold";
    setup.standin.uninstall(domain);
    const [event] = setup.standin.webhooks.held.splice(0);
    setup.standin.webhooks.mode = "auto";
    const res = await setup.app.client().post("/shopify/webhooks", event.body, {
      "content-type": "application/json",
      "x-shopify-topic": event.topic,
      "x-shopify-shop-domain": domain,
      "x-shopify-hmac-sha256": setup.standin.webhooks.sign(event.body),
      "x-shopify-event-id": event.eventId,
    });
    assert.equal(res.status, 200);
    assert.equal((await shopState(storeId)).status, "disconnected");
  });
});

/** Installs a seeded shop by OAuth and imports it: the store, an API client and the shop. */
async function installedAndImported() {
  const { domain, shop } = newShop();
  const res = await installShop(setup, domain);
  assert.equal(res.status, 302, JSON.stringify(res.body));
  const storeId = await storeOfShop(domain);
  await setup.app.drain();
  const key = await setup.app.admin.post(`/admin/stores/${storeId}/keys`, {
    name: "test",
    scopes: ALL_SCOPES,
  });
  const api = setup.app.client(`Bearer ${key.body.data.key}`);
  return { storeId, domain, shop, api };
}

/** Applies an adjustment of +`delta` to the first variant at the first location: its id and the level's ids. */
async function adjust(api: Client, delta: number) {
  const variant = (await api.get("/v2/variants?limit=1")).body.data[0];
  const location = (await api.get("/v2/locations")).body.data[0];
  const draft = await api.post("/v2/stock_adjustments", {
    location_id: location.id,
    reason: "correction",
    lines: [{ variant_id: variant.id, delta }],
  });
  assert.equal(draft.status, 201, JSON.stringify(draft.body));
  const applied = await api.post(
    `/v2/stock_adjustments/${draft.body.data.id}/apply`,
    undefined,
    idempotencyKey(),
  );
  assert.equal(applied.status, 200, JSON.stringify(applied.body));
  return {
    id: draft.body.data.id as number,
    itemId: variant.inventory_item_id as number,
    locationId: location.id as number,
  };
}

const syncOf = async (api: Client, id: number) =>
  (await api.get(`/v2/stock_adjustments/${id}`)).body.data.platform_sync;
const available = (
  shop: { level(i: number, l: number): { quantities: { available: number } } | undefined },
  itemId: number,
  locationId: number,
) => shop.level(itemId, locationId)?.quantities.available;

describe("pushes with an OAuth token", () => {
  test("a push made within 5 minutes of the token's expiry refreshes it first and reaches Shopify once", async () => {
    const { storeId, shop, api } = await installedAndImported();
    const before = openShopTokens(setup.app.runtime.ctx, (await findShopByStore(db(), storeId))!);
    setup.clock.advance(56 * 60_000);
    const { id, itemId, locationId } = await adjust(api, 3);
    const was = available(shop, itemId, locationId)!;
    await setup.app.drain();
    assert.deepEqual(await syncOf(api, id), {
      state: "synced",
      attempted_at: setup.clock.now().toISOString(),
      error: null,
    });
    assert.equal(available(shop, itemId, locationId), was + 3);
    const after = openShopTokens(setup.app.runtime.ctx, (await findShopByStore(db(), storeId))!);
    assert.notEqual(after.accessToken, before.accessToken);
    assert.equal(after.accessTokenExpiresAt?.getTime(), setup.clock.now().getTime() + 3600_000);
  });

  test("a 401 whose refresh Shopify refuses disconnects the store and the push waits; a re-install sends it once", async () => {
    const { storeId, domain, shop, api } = await installedAndImported();
    setup.standin.tokens.revoke(shop);
    const { id, itemId, locationId } = await adjust(api, 2);
    const was = available(shop, itemId, locationId)!;
    await setup.app.drain();
    const store = await setup.app.admin.get(`/admin/stores/${storeId}`);
    assert.equal(store.body.data.shopify.status, "disconnected");
    assert.equal(store.body.data.shopify.disconnected_reason, REFRESH_REFUSED_REASON);
    const waiting = await syncOf(api, id);
    assert.equal(waiting.state, "pending");
    assert.match(waiting.error, /disconnected/);
    assert.equal(available(shop, itemId, locationId), was, "nothing reached Shopify");

    assert.equal((await installShop(setup, domain)).status, 302);
    await setup.app.drain();
    assert.equal((await syncOf(api, id)).state, "synced");
    assert.equal(available(shop, itemId, locationId), was + 2);
    assert.equal(
      (await setup.app.admin.get(`/admin/stores/${storeId}`)).body.data.shopify.status,
      "connected",
    );
  });
});

describe("without SHOPIFY_API_KEY and SHOPIFY_API_SECRET", () => {
  test("the install and callback routes answer 404, as an unknown path does", async () => {
    const plain = await startTestApp();
    try {
      const unknown = await plain.client().get("/shopify/nowhere?shop=x.myshopify.com");
      assert.deepEqual(
        [unknown.status, unknown.body],
        [404, { error: { code: "not_found", message: "No route GET /shopify/nowhere." } }],
      );
      for (const path of ["/shopify/install", "/shopify/callback"]) {
        const res = await plain.client().get(`${path}?shop=x.myshopify.com`);
        assert.deepEqual(
          [res.status, res.body],
          [404, { error: { code: "not_found", message: `No route GET ${path}.` } }],
        );
      }
    } finally {
      await plain.close();
    }
  });
});
