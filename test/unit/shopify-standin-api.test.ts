/**
 * The Shopify stand-in through HTTP (issue 19 item 6): reads with search and paging, query cost and
 * THROTTLED, inventoryAdjustQuantities' runtime rules, item costs, OAuth with expiring tokens, and faults.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import * as doc from "../shopify-standin/documents.ts";
import { type ShopifyStandin, startShopifyStandin } from "../shopify-standin/index.ts";
import type { ShopState } from "../shopify-standin/state.ts";

let clock = Date.parse("2026-11-02T10:00:00Z");
let standin: ShopifyStandin;
let shop: ShopState;
let token: string;

async function gql(query: string, variables: Record<string, unknown> = {}, accessToken = token) {
  const response = await fetch(`${standin.origin}/admin/api/2026-10/graphql.json`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-shopify-access-token": accessToken },
    body: JSON.stringify({ query, variables }),
  });
  return {
    status: response.status,
    version: response.headers.get("x-shopify-api-version"),
    body: (await response.json()) as any,
  };
}

const itemOf = (n: number) => `gid://shopify/InventoryItem/${[...shop.items.keys()][n]}`;
const locationOf = (n: number) => `gid://shopify/Location/${[...shop.locations.keys()][n]}`;
const levelOf = (n: number, l = 0) =>
  shop.level([...shop.items.keys()][n], [...shop.locations.keys()][l])!.quantities;

function adjustInput(name: string, changes: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
  return { name, reason: "received", referenceDocumentUri: "gid://stockroom/Receipt/12", changes, ...extra };
}
const change = (n: number, delta: number, extra: Record<string, unknown> = {}) => ({
  inventoryItemId: itemOf(n),
  locationId: locationOf(0),
  delta,
  changeFromQuantity: null,
  ...extra,
});

before(async () => {
  standin = await startShopifyStandin({
    now: () => clock,
    bucket: { maximumAvailable: 1000, restoreRate: 50 },
  });
  ({ shop, accessToken: token } = standin.addShop("acme.myshopify.com", {
    name: "Acme",
    currency: "EUR",
    timezone: "Europe/Paris",
  }));
  shop.seed({ products: 3, variantsPerProduct: 2, locations: 2, available: 10 });
});
after(() => standin.close());

describe("Shopify stand-in: reads", () => {
  it("answers the shop with its cost, and 401 for an unknown token", async () => {
    const { status, version, body } = await gql(doc.SHOP);
    assert.equal(status, 200);
    assert.equal(version, "2026-10");
    assert.deepEqual(body.data, {
      shop: { name: "Acme", currencyCode: "EUR", ianaTimezone: "Europe/Paris" },
    });
    assert.deepEqual(Object.keys(body.extensions.cost), [
      "requestedQueryCost",
      "actualQueryCost",
      "throttleStatus",
    ]);
    assert.equal(body.extensions.cost.requestedQueryCost, 1);
    const refused = await gql(doc.SHOP, {}, "shpat_nope");
    assert.equal(refused.status, 401);
    const elsewhere = await fetch(`${standin.origin}/admin/api/2026-07/graphql.json`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-shopify-access-token": token },
      body: JSON.stringify({ query: doc.SHOP }),
    });
    assert.equal(elsewhere.status, 404);
    assert.deepEqual(refused.body, {
      errors: "[API] Invalid API key or access token (unrecognized login or wrong password)",
    });
  });

  it("refuses a typo'd field through HTTP with 200 and no data", async () => {
    const { status, body } = await gql("{ shop { nmae } }");
    assert.equal(status, 200);
    assert.equal(body.data, undefined);
    assert.equal(body.errors[0].message, "Field 'nmae' doesn't exist on type 'Shop'");
    assert.equal(body.errors[0].extensions.code, "undefinedField");
  });

  it("pages with first/after and filters on updated_at", async () => {
    const page1 = await gql(doc.VARIANTS_SINCE, { first: 4 });
    assert.equal(page1.body.data.productVariants.nodes.length, 4);
    assert.equal(page1.body.data.productVariants.pageInfo.hasNextPage, true);
    const page2 = await gql(doc.VARIANTS_SINCE, {
      first: 4,
      after: page1.body.data.productVariants.pageInfo.endCursor,
    });
    assert.deepEqual(
      page2.body.data.productVariants.nodes.map((v: any) => v.sku),
      ["SKU-3-1", "SKU-3-2"],
    );
    assert.equal(page2.body.data.productVariants.pageInfo.hasNextPage, false);

    const since = new Date(clock).toISOString();
    clock += 60_000;
    shop.variants.values().next().value!.updatedAt = new Date(clock);
    const changed = await gql(doc.VARIANTS_SINCE, { first: 10, query: `updated_at:>'${since}'` });
    assert.deepEqual(
      changed.body.data.productVariants.nodes.map((v: any) => v.sku),
      ["SKU-1-1"],
    );
  });

  it("orders by sortKey UPDATED_AT across pages, so the last row read is the newest", async () => {
    clock += 60_000;
    shop.products.values().next().value!.updatedAt = new Date(clock);
    const first = await gql(doc.PRODUCTS_SINCE, { first: 2 });
    const titles = (r: any) => r.body.data.products.edges.map((e: any) => e.node.title);
    assert.deepEqual(titles(first), ["Product 2", "Product 3"]);
    const rest = await gql(doc.PRODUCTS_SINCE, {
      first: 2,
      after: first.body.data.products.pageInfo.endCursor,
    });
    assert.deepEqual(titles(rest), ["Product 1"]);
    assert.equal(rest.body.data.products.pageInfo.hasNextPage, false);
  });

  it("answers, searches and sorts times at the whole second, as Shopify writes them", async () => {
    clock += 60_000;
    const second = clock;
    const [a, b] = [...shop.variants.values()];
    a.updatedAt = new Date(second + 700); // changed later in the second than b
    b.updatedAt = new Date(second + 200);
    const iso = new Date(second).toISOString().replace(".000Z", "Z");
    const read = await gql(doc.VARIANTS_SINCE, { first: 250 });
    const nodes = read.body.data.productVariants.nodes;
    const at = (id: number) =>
      nodes.find((n: any) => n.id === `gid://shopify/ProductVariant/${id}`).updatedAt;
    assert.deepEqual([at(a.id), at(b.id)], [iso, iso]);
    const skus = async (query: string) =>
      (await gql(doc.VARIANTS_SINCE, { first: 250, query })).body.data.productVariants.nodes.map(
        (v: any) => v.sku,
      );
    assert.deepEqual(await skus(`updated_at:>'${iso}'`), []);
    assert.deepEqual(await skus(`updated_at:>='${iso}'`), [a.sku, b.sku]);
    // Ties of a second are ordered by id, whichever changed first within it.
    const [p1, p2] = [...shop.products.values()];
    p1.updatedAt = new Date(second + 700);
    p2.updatedAt = new Date(second + 200);
    const sorted = await gql(
      `{ products(first: 250, sortKey: UPDATED_AT, query: "updated_at:>='${iso}'") { nodes { id updatedAt } } }`,
    );
    assert.deepEqual(sorted.body.data.products.nodes, [
      { id: `gid://shopify/Product/${p1.id}`, updatedAt: iso },
      { id: `gid://shopify/Product/${p2.id}`, updatedAt: iso },
    ]);
  });

  it("answers null for a GID of another type", async () => {
    const variant = `gid://shopify/ProductVariant/${[...shop.variants.keys()][0]}`;
    const { body } = await gql("query ($id: ID!) { product(id: $id) { id } node(id: $id) { id } }", {
      id: variant,
    });
    assert.deepEqual(body.data, { product: null, node: { id: variant } });
  });

  it("refuses more than 250 ids in one input array", async () => {
    const ids = Array.from({ length: 251 }, (_, i) => `gid://shopify/InventoryItem/${i + 1}`);
    const { body } = await gql(doc.ITEM_LEVELS, { ids });
    assert.deepEqual(
      body.errors.map((e: any) => [e.message, e.extensions.code]),
      [
        [
          "The input array size of 251 is greater than the maximum allowed of 250.",
          "MAX_INPUT_SIZE_EXCEEDED",
        ],
      ],
    );
  });

  it("requires first on a connection outside bulk operations", async () => {
    const { body } = await gql("{ locations { nodes { id } } }");
    assert.equal(body.data, null);
    assert.equal(body.errors[0].message, "you must provide one of first or last");
  });

  it("reads levels by location with the quantities asked for", async () => {
    const { body } = await gql(doc.LOCATION_LEVELS_SINCE, { location: locationOf(1), first: 2 });
    const first = body.data.location.inventoryLevels.nodes[0];
    assert.equal(first.item.id, itemOf(0));
    assert.deepEqual(first.quantities, [
      { name: "available", quantity: 10 },
      { name: "on_hand", quantity: 10 },
      { name: "incoming", quantity: 0 },
      { name: "committed", quantity: 0 },
    ]);
  });
});

describe("Shopify stand-in: query cost", () => {
  it("charges the requested cost, refunds to the actual one, and answers THROTTLED as HTTP 200", async () => {
    const small = await startShopifyStandin({
      now: () => clock,
      bucket: { maximumAvailable: 100, restoreRate: 10 },
    });
    const { shop: s, accessToken } = small.addShop("tiny.myshopify.com");
    s.seed({ products: 3 });
    const query = "query { products(first: 40) { nodes { id } } }";
    const post = async () => {
      const response = await fetch(`${small.origin}/admin/api/2026-10/graphql.json`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-shopify-access-token": accessToken },
        body: JSON.stringify({ query }),
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    const ok = await post();
    assert.deepEqual(ok.body.extensions.cost, {
      requestedQueryCost: 42,
      actualQueryCost: 5,
      throttleStatus: { maximumAvailable: 100, currentlyAvailable: 95, restoreRate: 10 },
    });
    await post(); // 90 left
    await post(); // 85 left: each run holds 42 while it runs
    const s2 = await post();
    assert.equal(s2.body.extensions.cost.throttleStatus.currentlyAvailable, 80);
    // Drain below 42 with a query whose actual cost is its requested cost.
    s.seed({ products: 40 });
    await post(); // 80 - 42 = 38
    const throttled = await post();
    assert.equal(throttled.status, 200);
    assert.deepEqual(throttled.body.errors, [
      {
        message: "Throttled",
        extensions: { code: "THROTTLED", documentation: "https://shopify.dev/api/usage/rate-limits" },
      },
    ]);
    assert.equal(throttled.body.data, undefined);
    assert.equal(throttled.body.extensions.cost.actualQueryCost, null);
    clock += 1000; // 10 points restored: 48 ≥ 42
    assert.equal((await post()).body.errors, undefined);
    await small.close();
  });

  it("refuses a single query over 1,000 points", async () => {
    const { body } = await gql(
      "{ products(first: 250) { nodes { variants(first: 250) { nodes { id } } } } }",
    );
    assert.equal(body.errors[0].extensions.code, "MAX_COST_EXCEEDED");
  });
});

describe("Shopify stand-in: inventoryAdjustQuantities", () => {
  it("moves available and on_hand; incoming alone with its ledger document; quantityAfterChange is null", async () => {
    const { body } = await gql(doc.ADJUST, {
      key: "k-available",
      input: adjustInput("available", [change(0, 5)]),
    });
    const group = body.data.inventoryAdjustQuantities.inventoryAdjustmentGroup;
    assert.deepEqual(body.data.inventoryAdjustQuantities.userErrors, []);
    assert.deepEqual(
      group.changes.map((c: any) => [c.name, c.delta, c.quantityAfterChange, c.ledgerDocumentUri]),
      [
        ["available", 5, null, null],
        ["on_hand", 5, null, null],
      ],
    );
    assert.equal(group.referenceDocumentUri, "gid://stockroom/Receipt/12");
    assert.deepEqual([levelOf(0).available, levelOf(0).on_hand], [15, 15]);

    const ledger = { ledgerDocumentUri: "stockroom://purchase-orders/7" };
    const incoming = await gql(doc.ADJUST, {
      key: "k-incoming",
      input: adjustInput("incoming", [change(0, 8, ledger)], { reason: "movement_created" }),
    });
    assert.deepEqual(incoming.body.data.inventoryAdjustQuantities.userErrors, []);
    assert.deepEqual([levelOf(0).incoming, levelOf(0).available, levelOf(0).on_hand], [8, 15, 15]);

    await gql(doc.ADJUST, { key: "k-qc", input: adjustInput("quality_control", [change(0, 2, ledger)]) });
    assert.deepEqual([levelOf(0).quality_control, levelOf(0).available, levelOf(0).on_hand], [2, 15, 17]);
  });

  it("replays a key's first answer without moving again, and refuses the key with another input", async () => {
    const input = adjustInput("available", [change(1, 3)]);
    const first = await gql(doc.ADJUST, { key: "k-replay", input });
    const again = await gql(doc.ADJUST, { key: "k-replay", input });
    assert.deepEqual(again.body.data, first.body.data);
    assert.equal(levelOf(1).available, 13);
    const other = await gql(doc.ADJUST, { key: "k-replay", input: adjustInput("available", [change(1, 4)]) });
    assert.deepEqual(other.body.data.inventoryAdjustQuantities, {
      inventoryAdjustmentGroup: null,
      userErrors: [
        {
          field: ["input"],
          message: "The idempotency key was used with different parameters.",
          code: "IDEMPOTENCY_KEY_PARAMETER_MISMATCH",
        },
      ],
    });
    assert.equal(levelOf(1).available, 13);
  });

  it("refuses a call without @idempotent as a top-level error", async () => {
    const unkeyed = doc.ADJUST.replace("@idempotent(key: $key)", "").replace(", $key: String!", "");
    const { body } = await gql(unkeyed, { input: adjustInput("available", [change(2, 1)]) });
    assert.deepEqual(body.data, { inventoryAdjustQuantities: null });
    assert.equal(body.errors[0].message, "The @idempotent directive is required for this mutation.");
    assert.equal(levelOf(2).available, 10);
  });

  const refusals: [string, () => Record<string, unknown>, { field: string[]; code: string | null }][] = [
    [
      "on_hand as a name",
      () => adjustInput("on_hand", [change(2, 1)]),
      { field: ["input", "name"], code: "INVALID_QUANTITY_NAME" },
    ],
    [
      "committed as a name",
      () => adjustInput("committed", [change(2, 1)]),
      { field: ["input", "name"], code: "INVALID_QUANTITY_NAME" },
    ],
    [
      "an unknown reason",
      () => adjustInput("available", [change(2, 1)], { reason: "gift" }),
      { field: ["input", "reason"], code: "INVALID_REASON" },
    ],
    [
      "a change without changeFromQuantity",
      () => adjustInput("available", [{ inventoryItemId: itemOf(2), locationId: locationOf(0), delta: 1 }]),
      { field: ["input", "changes", "0", "changeFromQuantity"], code: null },
    ],
    [
      "a ledger document on available",
      () => adjustInput("available", [change(2, 1, { ledgerDocumentUri: "stockroom://x/1" })]),
      { field: ["input", "changes", "0", "ledgerDocumentUri"], code: "INVALID_AVAILABLE_DOCUMENT" },
    ],
    [
      "damaged without a ledger document",
      () => adjustInput("damaged", [change(2, 1)]),
      { field: ["input", "changes", "0", "ledgerDocumentUri"], code: "INVALID_QUANTITY_DOCUMENT" },
    ],
    [
      "a gid://shopify/ ledger document",
      () => adjustInput("incoming", [change(2, 1, { ledgerDocumentUri: "gid://shopify/Order/1" })]),
      { field: ["input", "changes", "0", "ledgerDocumentUri"], code: "INTERNAL_LEDGER_DOCUMENT" },
    ],
    [
      "two ledger documents in one call",
      () =>
        adjustInput("incoming", [
          change(2, 1, { ledgerDocumentUri: "a:1" }),
          change(3, 1, { ledgerDocumentUri: "a:2" }),
        ]),
      { field: ["input", "changes"], code: "MAX_ONE_LEDGER_DOCUMENT" },
    ],
    [
      "a stale changeFromQuantity",
      () => adjustInput("available", [change(2, 1, { changeFromQuantity: 99 })]),
      { field: ["input", "changes", "0", "changeFromQuantity"], code: "CHANGE_FROM_QUANTITY_STALE" },
    ],
  ];
  for (const [what, input, expected] of refusals) {
    it(`refuses ${what}, moving nothing`, async () => {
      const { body } = await gql(doc.ADJUST, { key: `k-${what}`, input: input() });
      const answer = body.data.inventoryAdjustQuantities;
      assert.equal(answer.inventoryAdjustmentGroup, null);
      assert.deepEqual(
        answer.userErrors.map((e: any) => ({ field: e.field, code: e.code })),
        [expected],
      );
      assert.deepEqual([levelOf(2).available, levelOf(2).on_hand, levelOf(2).incoming], [10, 10, 0]);
    });
  }

  it("refuses more than 250 changes", async () => {
    const changes = Array.from({ length: 251 }, () => change(2, 1));
    const { body } = await gql(doc.ADJUST, { key: "k-251", input: adjustInput("available", changes) });
    assert.equal(body.errors[0].extensions.code, "MAX_INPUT_SIZE_EXCEEDED");
    assert.equal(levelOf(2).available, 10);
  });

  it("answers IDEMPOTENCY_CONCURRENT_REQUEST under a key whose first request is in progress, then its result", async () => {
    const input = adjustInput("available", [change(3, 1)]);
    const before = levelOf(3).available;
    const hold = standin.holdNextAdjust();
    const first = gql(doc.ADJUST, { key: "k-held", input });
    await hold.reached;
    const during = await gql(doc.ADJUST, { key: "k-held", input });
    assert.deepEqual(during.body.data.inventoryAdjustQuantities, {
      inventoryAdjustmentGroup: null,
      userErrors: [
        {
          field: ["input"],
          message: "This request is currently in progress, please try again.",
          code: "IDEMPOTENCY_CONCURRENT_REQUEST",
        },
      ],
    });
    hold.release();
    const answered = (await first).body.data.inventoryAdjustQuantities;
    assert.deepEqual(answered.userErrors, []);
    const after = await gql(doc.ADJUST, { key: "k-held", input });
    assert.deepEqual(after.body.data.inventoryAdjustQuantities, answered);
    assert.equal(levelOf(3).available, before + 1);
  });

  it("answers a forced refusal, and IDEMPOTENCY_PREVIOUS_ATTEMPT_FAILED for a burned key until a new one", async () => {
    standin.refuseNextAdjust("ADJUST_QUANTITIES_FAILED");
    const input = adjustInput("available", [change(2, 1)]);
    const refused = await gql(doc.ADJUST, { key: "k-forced", input });
    assert.equal(refused.body.data.inventoryAdjustQuantities.userErrors[0].code, "ADJUST_QUANTITIES_FAILED");
    standin.refuseNextAdjust("IDEMPOTENCY_PREVIOUS_ATTEMPT_FAILED");
    await gql(doc.ADJUST, { key: "k-burned", input });
    const retried = await gql(doc.ADJUST, { key: "k-burned", input });
    assert.equal(
      retried.body.data.inventoryAdjustQuantities.userErrors[0].code,
      "IDEMPOTENCY_PREVIOUS_ATTEMPT_FAILED",
    );
    assert.equal(levelOf(2).available, 10);
    const fresh = await gql(doc.ADJUST, { key: "k-burned-2", input });
    assert.deepEqual(fresh.body.data.inventoryAdjustQuantities.userErrors, []);
    assert.equal(levelOf(2).available, 11);
  });
});

describe("Shopify stand-in: access scopes", () => {
  it("answers ACCESS_DENIED for a root field the token's scopes do not cover, moving nothing", async () => {
    const { accessToken } = standin.addShop("narrow.myshopify.com", { scope: "read_products" });
    const narrow = standin.shops.get("narrow.myshopify.com")!;
    narrow.seed({ products: 1 });
    const item = `gid://shopify/InventoryItem/${[...narrow.items.keys()][0]}`;
    const location = `gid://shopify/Location/${[...narrow.locations.keys()][0]}`;
    const input = {
      name: "available",
      reason: "correction",
      changes: [{ inventoryItemId: item, locationId: location, delta: 1, changeFromQuantity: null }],
    };
    const { body } = await gql(doc.ADJUST, { key: "scoped", input }, accessToken);
    assert.deepEqual(body.data, { inventoryAdjustQuantities: null });
    assert.deepEqual(
      body.errors.map((e: any) => [e.message, e.extensions.code]),
      [
        [
          "Access denied for inventoryAdjustQuantities field. Required access: `write_inventory` access scope.",
          "ACCESS_DENIED",
        ],
      ],
    );
    assert.equal(
      narrow.level([...narrow.items.keys()][0], [...narrow.locations.keys()][0])!.quantities.available,
      10,
    );
    const reads = await gql("{ products(first: 1) { nodes { title } } location { id } }", {}, accessToken);
    assert.deepEqual(reads.body.data, { products: { nodes: [{ title: "Product 1" }] }, location: null });
    assert.equal(reads.body.errors[0].extensions.code, "ACCESS_DENIED");
  });
});

describe("Shopify stand-in: item cost", () => {
  it("sets an item's cost, presented in the shop's currency", async () => {
    const { body } = await gql(doc.ITEM_COST, { id: itemOf(0), cost: "4.25" });
    assert.deepEqual(body.data.inventoryItemUpdate, {
      inventoryItem: { id: itemOf(0), unitCost: { amount: "4.25", currencyCode: "EUR" } },
      userErrors: [],
    });
  });
});

describe("Shopify stand-in: OAuth and faults", () => {
  it("installs by authorization code with an expiring token that a refresh token renews", async () => {
    const authorize = new URL(`${standin.origin}/admin/oauth/authorize`);
    for (const [k, v] of Object.entries({
      client_id: standin.apiKey,
      scope: "read_inventory",
      redirect_uri: "https://app.test/shopify/callback",
      state: "s1",
    })) {
      authorize.searchParams.set(k, v);
    }
    const redirect = await fetch(authorize, { redirect: "manual" });
    assert.equal(redirect.status, 302);
    const callback = new URL(redirect.headers.get("location")!);
    const params = Object.fromEntries(callback.searchParams);
    assert.deepEqual(Object.keys(params).sort(), ["code", "hmac", "host", "shop", "state", "timestamp"]);
    assert.equal(params.shop, "acme.myshopify.com");
    assert.equal(params.state, "s1");
    assert.equal(params.hmac, standin.tokens.callbackHmac(params));

    const exchange = (body: Record<string, unknown>) =>
      fetch(`${standin.origin}/admin/oauth/access_token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_id: standin.apiKey, client_secret: standin.apiSecret, ...body }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const issued = await exchange({ code: params.code, expiring: 1 });
    assert.equal(issued.status, 200);
    assert.deepEqual(Object.keys(issued.body).sort(), [
      "access_token",
      "expires_in",
      "refresh_token",
      "refresh_token_expires_in",
      "scope",
    ]);
    assert.equal(issued.body.expires_in, 3600);
    assert.deepEqual((await exchange({ code: params.code, expiring: 1 })).body.error, "invalid_grant");
    assert.equal((await gql(doc.SHOP, {}, issued.body.access_token)).status, 200);

    clock += 3600_000;
    assert.equal((await gql(doc.SHOP, {}, issued.body.access_token)).status, 401);
    const renewed = await exchange({ grant_type: "refresh_token", refresh_token: issued.body.refresh_token });
    assert.equal(renewed.status, 200);
    assert.equal(renewed.body.refresh_token === issued.body.refresh_token, false);
    assert.equal((await gql(doc.SHOP, {}, renewed.body.access_token)).status, 200);
    // A refresh whose answer was lost can be retried with the old refresh token, until the new one is used.
    const retried = await exchange({ grant_type: "refresh_token", refresh_token: issued.body.refresh_token });
    assert.equal(retried.status, 200);
    const next = await exchange({ grant_type: "refresh_token", refresh_token: retried.body.refresh_token });
    assert.equal(next.status, 200);
    const retired = await exchange({ grant_type: "refresh_token", refresh_token: issued.body.refresh_token });
    assert.deepEqual(retired, {
      status: 400,
      body: { error: "invalid_grant", error_description: "The code or refresh token is invalid or expired" },
    });
    assert.equal((await exchange({ code: "x", client_secret: "wrong" })).body.error, "invalid_client");
  });

  it("answers 503 during a 5xx outage and refuses connections during a refused one", async () => {
    await standin.startOutage("5xx", 1);
    assert.equal((await gql(doc.SHOP)).status, 503);
    assert.equal((await gql(doc.SHOP)).status, 200);
    await standin.startOutage("refused");
    // A pooled keep-alive socket is cut first (UND_ERR_SOCKET); a new connection is refused.
    await assert.rejects(gql(doc.SHOP), (error: any) =>
      ["UND_ERR_SOCKET", "ECONNREFUSED"].includes(error.cause?.code),
    );
    await assert.rejects(gql(doc.SHOP), (error: any) => error.cause?.code === "ECONNREFUSED");
    await standin.endOutage();
    assert.equal((await gql(doc.SHOP)).status, 200);
  });
});
