/**
 * The shops repository and its sealed columns (issue 19): a shop is stored with its tokens sealed for
 * its store, read back by store and by domain, moved between states; the secrets start-up pass
 * re-seals its three sealed columns on rotation and refuses a start whose key opens none of them.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import {
  findShopByDomain,
  findShopByStore,
  insertShop,
  markReconciled,
  markShopImported,
  markWebhookReceived,
  openShopTokens,
  setShopImportError,
  setShopStatus,
  shopifySealedColumns,
  updateShopTokens,
} from "../../src/platform/shopify/index.ts";
import { openSecrets, parseSecretKey, Sealer, SecretsRefusal } from "../../src/secrets/index.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";

const keyA = randomBytes(32).toString("hex");
const keyB = randomBytes(32).toString("hex");
let t: TestApp;

before(async () => {
  t = await startTestApp({ env: { SECRETS_KEY: keyA } });
});
after(() => t.close());

const expiresAt = new Date("2030-01-01T01:00:00.000Z");
const refreshExpiresAt = new Date("2030-03-01T00:00:00.000Z");

async function shopFor(storeId: number, shop: string) {
  return insertShop(t.runtime.ctx.db, t.runtime.ctx, {
    storeId,
    shop,
    apiVersion: "2026-10",
    scopes: ["read_products", "write_inventory"],
    tokens: {
      accessToken: `shpat_${shop}`,
      accessTokenExpiresAt: expiresAt,
      refreshToken: `shprt_${shop}`,
      refreshTokenExpiresAt: refreshExpiresAt,
    },
    webhookSecret: null,
    status: "importing",
  });
}

describe("shopify shops", () => {
  test("a shop is stored with its tokens sealed for its store and found by store and by domain", async () => {
    const { db } = t.runtime.ctx;
    const store = await t.createStore();
    const inserted = await shopFor(store.id, "sealed-one.myshopify.com");
    assert.ok(inserted.access_token_sealed.startsWith("k1."), "sealed");
    assert.ok(!inserted.access_token_sealed.includes("shpat_"), "no token in the clear");
    const byStore = await findShopByStore(db, store.id);
    const byDomain = await findShopByDomain(db, "sealed-one.myshopify.com");
    assert.deepEqual(byDomain, byStore);
    assert.ok(byStore);
    assert.deepEqual(
      {
        shop: byStore.shop,
        api_version: byStore.api_version,
        scopes: byStore.scopes,
        status: byStore.status,
        disconnected_reason: byStore.disconnected_reason,
        import_error: byStore.import_error,
        imported_at: byStore.imported_at,
        webhook_secret_sealed: byStore.webhook_secret_sealed,
      },
      {
        shop: "sealed-one.myshopify.com",
        api_version: "2026-10",
        scopes: ["read_products", "write_inventory"],
        status: "importing",
        disconnected_reason: null,
        import_error: null,
        imported_at: null,
        webhook_secret_sealed: null,
      },
    );
    assert.deepEqual(openShopTokens(t.runtime.ctx, byStore), {
      accessToken: "shpat_sealed-one.myshopify.com",
      accessTokenExpiresAt: expiresAt,
      refreshToken: "shprt_sealed-one.myshopify.com",
      refreshTokenExpiresAt: refreshExpiresAt,
      webhookSecret: null,
    });
    // Sealed for its own store: a row whose sealed token is copied to another store's does not open.
    const other = await t.createStore();
    const copied = { ...byStore, store_id: other.id };
    assert.throws(() => openShopTokens(t.runtime.ctx, copied), /could not be opened/);
    assert.equal(await findShopByStore(db, other.id), undefined);
    await assert.rejects(shopFor(other.id, "sealed-one.myshopify.com"), /unique|duplicate/i);
  });

  test("status moves: imported, disconnected with its reason, new tokens, connected again", async () => {
    const { db } = t.runtime.ctx;
    const store = await t.createStore();
    await shopFor(store.id, "moves.myshopify.com");
    await setShopImportError(db, store.id, "bulk operation failed: ACCESS_DENIED");
    assert.equal((await findShopByStore(db, store.id))?.import_error, "bulk operation failed: ACCESS_DENIED");
    const importedAt = new Date("2030-01-01T00:10:00.000Z");
    await markShopImported(db, store.id, importedAt);
    let row = await findShopByStore(db, store.id);
    assert.deepEqual([row?.status, row?.imported_at, row?.import_error], ["connected", importedAt, null]);

    row = await setShopStatus(db, store.id, "disconnected", "Shopify refused the access token (401)");
    assert.deepEqual(
      [row?.status, row?.disconnected_reason],
      ["disconnected", "Shopify refused the access token (401)"],
    );
    // An import ending while disconnected leaves it disconnected.
    await markShopImported(db, store.id, importedAt);
    assert.equal((await findShopByStore(db, store.id))?.status, "disconnected");

    row = await updateShopTokens(
      db,
      t.runtime.ctx,
      store.id,
      {
        accessToken: "shpat_new",
        accessTokenExpiresAt: null,
        refreshToken: null,
        refreshTokenExpiresAt: null,
      },
      { scopes: ["write_inventory"], installedAt: new Date() },
    );
    assert.ok(row);
    assert.deepEqual(openShopTokens(t.runtime.ctx, row), {
      accessToken: "shpat_new",
      accessTokenExpiresAt: null,
      refreshToken: null,
      refreshTokenExpiresAt: null,
      webhookSecret: null,
    });
    assert.deepEqual(row.scopes, ["write_inventory"]);
    row = await setShopStatus(db, store.id, "connected");
    assert.deepEqual([row?.status, row?.disconnected_reason], ["connected", null]);
  });

  test("last webhook never moves back; last reconciliation is recorded", async () => {
    const { db } = t.runtime.ctx;
    const store = await t.createStore();
    await shopFor(store.id, "times.myshopify.com");
    const later = new Date("2030-01-02T00:00:00.000Z");
    const earlier = new Date("2030-01-01T00:00:00.000Z");
    await markWebhookReceived(db, store.id, later);
    await markWebhookReceived(db, store.id, earlier);
    await markReconciled(db, store.id, earlier);
    const row = await findShopByStore(db, store.id);
    assert.deepEqual([row?.last_webhook_at, row?.last_reconciled_at], [later, earlier]);
  });

  test("a status outside the list is refused by the table", async () => {
    const store = await t.createStore();
    await shopFor(store.id, "checked.myshopify.com");
    await assert.rejects(setShopStatus(t.runtime.ctx.db, store.id, "paused" as never), /check/i);
  });

  test("rotation re-seals the three columns; a key that opens none refuses the start naming them", async () => {
    const { db, config } = t.runtime.ctx;
    const store = await t.createStore();
    await insertShop(db, t.runtime.ctx, {
      storeId: store.id,
      shop: "rotated.myshopify.com",
      apiVersion: "2026-10",
      scopes: [],
      tokens: {
        accessToken: "a",
        accessTokenExpiresAt: null,
        refreshToken: "r",
        refreshTokenExpiresAt: null,
      },
      webhookSecret: "w",
      status: "connected",
    });
    const wrong = parseSecretKey(randomBytes(32).toString("hex"));
    await assert.rejects(
      openSecrets(db, { ...config, secretsKey: wrong, secretsKeyPrevious: null }, shopifySealedColumns),
      (e: unknown) =>
        e instanceof SecretsRefusal &&
        /Shopify access tokens sealed with key/.test(e.message) &&
        /Shopify refresh tokens sealed with key/.test(e.message) &&
        /Shopify webhook secrets sealed with key/.test(e.message),
    );
    const b = parseSecretKey(keyB);
    const rotated = await openSecrets(
      db,
      { ...config, secretsKey: b, secretsKeyPrevious: parseSecretKey(keyA) },
      shopifySealedColumns,
    );
    assert.equal(rotated.current.id, b?.id);
    const row = await findShopByDomain(db, "rotated.myshopify.com");
    assert.ok(row);
    for (const sealed of [row.access_token_sealed, row.refresh_token_sealed, row.webhook_secret_sealed])
      assert.ok(sealed?.startsWith(`k1.${b?.id}.`), "re-sealed with the new key");
    const onlyB = { sealer: new Sealer(b as NonNullable<typeof b>) };
    assert.deepEqual(
      [
        openShopTokens(onlyB, row).accessToken,
        openShopTokens(onlyB, row).refreshToken,
        openShopTokens(onlyB, row).webhookSecret,
      ],
      ["a", "r", "w"],
    );
  });
});
