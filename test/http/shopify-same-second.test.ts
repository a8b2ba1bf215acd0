/**
 * Changes in one whole second (docs/decisions.md, "Shopify connector", incremental reads): Shopify's
 * `updatedAt` has whole seconds, so on a busy shop a change often carries the time of the last one
 * the service read. Each case makes a change, lets its webhook's sync read it, makes another in the
 * same second, and expects the next sync (its webhook's) to bring the second: an `updated_at:>` search
 * from the newest time read, without the overlap, would skip it. The stand-in's clock is held on one
 * second while the changes are made; its webhooks go to the service, as a merchant's would.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/clock.ts";
import { syncCatalog } from "../../src/platform/catalog-sync.ts";
import { reconcileShop } from "../../src/platform/shopify/inbound/index.ts";
import { requestCatalogSync } from "../../src/platform/sync-request.ts";
import type { Client, TestApp } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { freePort } from "../helpers/child-server.ts";
import { listVariants } from "../helpers/factories.ts";
import { attachByToken, standinShop, startShopifyTestApp, storeApi } from "../helpers/shopify.ts";
import { mirrorLevelRow } from "../helpers/stock.ts";
import type { ShopifyStandin } from "../shopify-standin/index.ts";
import type { Level, ShopState } from "../shopify-standin/state.ts";
import { shopifyDateTime } from "../shopify-standin/time.ts";

let t: TestApp;
let standin: ShopifyStandin;
let clock: ManualClock;
/** The stand-in's clock held on one second (null: it runs). */
let heldAt: number | null = null;
let standinNow: () => number;

before(async () => {
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  clock = new ManualClock();
  const realStart = Date.now();
  standinNow = () => heldAt ?? clock.now().getTime() + (Date.now() - realStart);
  ({ t, standin } = await startShopifyTestApp({
    app: { env: { SHOPIFY_APP_URL: appUrl }, clock },
    standin: { now: () => standinNow() },
  }));
  await t.runtime.app.listen({ port, host: "127.0.0.1" });
});
after(async () => {
  await standin.close();
  await t.close();
});

/** Holds the stand-in's clock on the next whole second: every change until released has that time. */
function holdSecond(): void {
  heldAt = Math.ceil((standinNow() + 1) / 1000) * 1000;
}

/** Waits for the stand-in's deliveries in flight, then runs the syncs they queued (a second later). */
async function settle(): Promise<void> {
  await standin.webhooks.settled();
  clock.advance(1000);
  await t.drain();
}

/**
 * Two changes of `level` in one second (30, then 29), the second's webhook lost: the mirror holds 30
 * at the version Shopify reports for 29, a tie.
 */
async function tiedWithWebhookLost(shop: ShopState, api: Client, level: Level): Promise<void> {
  holdSecond();
  standin.setQuantity(shop, level.itemId, level.locationId, "available", 30);
  await settle();
  standin.webhooks.mode = "hold";
  standin.setQuantity(shop, level.itemId, level.locationId, "available", 29);
  standin.webhooks.mode = "auto";
  assert.deepEqual(await standin.webhooks.release({ drop: [0] }), []);
  heldAt = null;
  await settle();
  assert.equal((await mirrorLevelRow(api, level.itemId, level.locationId)).available, 30);
}

/** A shop of 2 products × 2 variants at `locations` locations, attached, subscribed and imported. */
async function attached(locations = 1): Promise<{ shop: ShopState; api: Client; storeId: number }> {
  const { shop, domain, accessToken } = standinShop(standin, {
    products: 2,
    variantsPerProduct: 2,
    locations,
  });
  const store = await attachByToken(t, domain, accessToken);
  await t.drain();
  const api = await storeApi(t, store.id);
  return { shop, api, storeId: store.id };
}

async function mirroredProduct(api: Client, id: number) {
  const res = await api.get("/v2/products?limit=250");
  expectStatus(res, 200);
  return res.body.data.find((p: { id: number }) => p.id === id);
}

async function mirroredVariant(api: Client, id: number) {
  return (await listVariants(api)).find((v) => v.id === id) as unknown as Record<string, unknown>;
}

describe("two changes in one second, a sync between them", () => {
  test("a product's title: the sync after the second shows it", async () => {
    const { shop, api } = await attached();
    const product = [...shop.products.values()][0];
    holdSecond();
    standin.editProduct(shop, product.id, { title: "First" });
    await settle();
    assert.equal((await mirroredProduct(api, product.id)).title, "First");
    standin.editProduct(shop, product.id, { title: "Second" });
    assert.equal(product.updatedAt.getTime(), heldAt);
    heldAt = null;
    await settle();
    assert.equal((await mirroredProduct(api, product.id)).title, "Second");
  });

  test("a variant's SKU and an inventory item's cost: the sync after the second shows them", async () => {
    const { shop, api } = await attached();
    const variant = [...shop.variants.values()][1];
    const item = shop.items.get(variant.inventoryItemId)!;
    const setCost = (cost: string) => {
      item.cost = cost;
      item.updatedAt = standin.now();
      standin.itemChanged(shop, item.id);
    };
    holdSecond();
    standin.editVariant(shop, variant.id, { sku: "SKU-FIRST" });
    setCost("8.00");
    await settle();
    assert.deepEqual(
      [(await mirroredVariant(api, variant.id)).sku, (await mirroredVariant(api, variant.id)).unit_cost],
      ["SKU-FIRST", "8.00"],
    );
    standin.editVariant(shop, variant.id, { sku: "SKU-SECOND" });
    setCost("9.00");
    heldAt = null;
    await settle();
    const mirrored = await mirroredVariant(api, variant.id);
    assert.deepEqual([mirrored.sku, mirrored.unit_cost], ["SKU-SECOND", "9.00"]);
  });

  test("a level's available: the sync after the second shows it", async () => {
    const { shop, api } = await attached();
    const level = [...shop.levels.values()][0];
    holdSecond();
    standin.setQuantity(shop, level.itemId, level.locationId, "available", 30);
    await settle();
    assert.equal((await mirrorLevelRow(api, level.itemId, level.locationId)).available, 30);
    standin.setQuantity(shop, level.itemId, level.locationId, "available", 29);
    heldAt = null;
    await settle();
    assert.equal((await mirrorLevelRow(api, level.itemId, level.locationId)).available, 29);
  });

  test("a level's second change, its webhook lost: a reconciliation pass repairs it", async () => {
    const { shop, api, storeId } = await attached();
    const level = [...shop.levels.values()][0];
    await tiedWithWebhookLost(shop, api, level);
    // The pass's bulk read has the version the mirror holds, a tie it cannot win (it cannot say when
    // it read the level): it reads the level again, at a known time (was: nothing adopted; only the
    // catalog sync it queues, within its overlap, brought the change).
    clock.advance(1000);
    const pass = await reconcileShop(t.runtime.ctx, storeId);
    assert.deepEqual(pass, { checked: shop.levels.size, repaired: 1 });
    assert.equal((await mirrorLevelRow(api, level.itemId, level.locationId)).available, 29);
    // The next pass finds nothing to repair.
    clock.advance(1000);
    assert.deepEqual(await reconcileShop(t.runtime.ctx, storeId), { checked: shop.levels.size, repaired: 0 });
  });

  test("a watermark written with milliseconds never goes back to the whole second it falls in", async () => {
    holdSecond();
    const { shop, api, storeId } = await attached();
    const second = heldAt as number;
    // As a store attached while the stand-in wrote milliseconds holds it: every resource's watermark
    // half a second into the held second, which sorts before Shopify's `…Z` of that second as text.
    const mark = new Date(second + 500).toISOString();
    const since = { products: mark, variants: mark, inventoryItems: mark, locations: mark, levels: mark };
    await t.runtime.ctx.db
      .updateTable("mirror_sync_states")
      .set({ watermark: JSON.stringify({ since }) })
      .where("store_id", "=", storeId)
      .execute();
    const watermark = async () => {
      const res = await t.admin.get(`/admin/stores/${storeId}/sync`);
      expectStatus(res, 200);
      return JSON.parse(res.body.data.mirror.watermark).since as typeof since;
    };
    const product = [...shop.products.values()][0];
    const level = [...shop.levels.values()][0];
    standin.editProduct(shop, product.id, { title: "In the held second" });
    standin.setQuantity(shop, level.itemId, level.locationId, "available", 31);
    const sent = standin.requests.length;
    await settle();
    // Its searches are written as Shopify writes a time, at the second (was: `…:55.500Z`).
    const searches = standin.requests
      .slice(sent)
      .flatMap((r) => (typeof r.variables.query === "string" ? [r.variables.query] : []));
    assert.ok(searches.length >= 5, `searches: ${searches.length}`);
    const from = shopifyDateTime(new Date(second - 60_000));
    for (const search of searches) assert.equal(search, `updated_at:>'${from}'`);
    assert.equal((await mirroredProduct(api, product.id)).title, "In the held second");
    assert.equal((await mirrorLevelRow(api, level.itemId, level.locationId)).available, 31);
    // Rows of `…Z` in the watermark's second are older than `….500Z`: it stays (was: moved back to `…Z`).
    assert.deepEqual(await watermark(), since);
    // A later second moves it on, in the form Shopify writes.
    heldAt = second + 2000;
    standin.editProduct(shop, product.id, { title: "Two seconds on" });
    heldAt = null;
    await settle();
    assert.equal((await mirroredProduct(api, product.id)).title, "Two seconds on");
    assert.deepEqual(await watermark(), { ...since, products: shopifyDateTime(new Date(second + 2000)) });
  });

  test("a change in the second of the import's bulk query: the next sync shows it", async () => {
    holdSecond();
    const { shop, api } = await attached();
    const product = [...shop.products.values()][0];
    standin.editProduct(shop, product.id, { title: "After the import" });
    heldAt = null;
    await settle();
    assert.equal((await mirroredProduct(api, product.id)).title, "After the import");
  });
});

describe("a tied level gone on Shopify before the reconciliation pass reads it again", () => {
  /**
   * A level of the last location changed twice in one second, the second change's webhook lost (the
   * mirror on the first: a tie the pass's bulk read cannot win), then `remove` run on the stand-in
   * right after the pass's bulk query took its snapshot, before the pass reads the tie again. Answers
   * the pass, the level and how many levels the snapshot had.
   */
  async function tieGoneBeforeReread(remove: (shop: ShopState, level: Level) => void) {
    const { shop, api, storeId } = await attached(2);
    const level = [...shop.levels.values()].at(-1)!;
    await tiedWithWebhookLost(shop, api, level);
    const snapshot = shop.levels.size;
    const run = standin.bulk.run.bind(standin.bulk);
    standin.bulk.run = (s, query) => {
      standin.bulk.run = run;
      const started = run(s, query);
      remove(shop, level);
      return started;
    };
    clock.advance(1000);
    try {
      const pass = await reconcileShop(t.runtime.ctx, storeId);
      return { pass, level, snapshot, api, storeId, shop };
    } finally {
      standin.bulk.run = run;
    }
  }

  const variantOf = (shop: ShopState, itemId: number) =>
    [...shop.variants.values()].find((v) => v.inventoryItemId === itemId)!.id;

  /** The store's mirror sync after the deletion's webhook and the pass's sync ran: no error. */
  async function syncedWithoutError(storeId: number) {
    await settle();
    const res = await t.admin.get(`/admin/stores/${storeId}/sync`);
    expectStatus(res, 200);
    assert.equal(res.body.data.mirror.last_error, null);
  }

  test("its variant deleted (item and level with it): the pass completes and marks the variant", async () => {
    let variantId = 0;
    const { pass, level, snapshot, api, storeId } = await tieGoneBeforeReread((shop, l) => {
      variantId = variantOf(shop, l.itemId);
      standin.deleteVariant(shop, variantId);
    });
    assert.deepEqual(pass, { checked: snapshot, repaired: 0 });
    // As the removals of any pass find a deleted variant: marked, its levels no longer listed.
    assert.equal(await mirroredVariant(api, variantId), undefined);
    assert.equal(await mirrorLevelRow(api, level.itemId, level.locationId), undefined);
    await syncedWithoutError(storeId);
  });

  test("the level deactivated (item and location stay): the pass completes and drops it", async () => {
    const { pass, level, snapshot, api, storeId, shop } = await tieGoneBeforeReread((s, l) =>
      standin.deactivateLevel(s, l.itemId, l.locationId),
    );
    // Was: refused ("Shopify has no level of inventory item …"), the pass failed; then (edges2) the
    // level stayed as the mirror held it. Read again absent, it is dropped (docs/decisions.md,
    // "Shopify webhooks and reconciliation"): out of the list, the item's variant still live.
    assert.deepEqual(pass, { checked: snapshot, repaired: 0, dropped: 1 });
    assert.notEqual(await mirroredVariant(api, variantOf(shop, level.itemId)), undefined);
    assert.equal(await mirrorLevelRow(api, level.itemId, level.locationId), undefined);
    await syncedWithoutError(storeId);
  });

  test("its location deleted (the item stays): the pass completes, the level and the location go", async () => {
    const { pass, level, snapshot, api, storeId, shop } = await tieGoneBeforeReread((s, l) =>
      standin.deleteLocation(s, l.locationId),
    );
    assert.deepEqual(pass, { checked: snapshot, repaired: 0, dropped: 1 });
    assert.notEqual(await mirroredVariant(api, variantOf(shop, level.itemId)), undefined);
    assert.equal(await mirrorLevelRow(api, level.itemId, level.locationId), undefined);
    await syncedWithoutError(storeId);
    // The sync the pass queued found the location gone: inactive.
    const location = await api.get(`/v2/locations/${level.locationId}`);
    expectStatus(location, 200);
    assert.equal(location.body.data.active, false);
  });
});

describe("a product changed while the sync reads its pages", () => {
  test("read twice (it moves past the cursor): the sync keeps the later read", async () => {
    // 151 products made, imported and one of them changed in one second: the sync after reads them
    // all (within the overlap), 150 a page, by updatedAt. The changed one, on the first page, changes
    // again two seconds on, before the second page: it sorts after the cursor, and the second page has
    // it again. Both reads differ from the mirror.
    holdSecond();
    const { shop, domain, accessToken } = standinShop(standin, { products: 151, locations: 1 });
    const store = await attachByToken(t, domain, accessToken);
    await t.drain();
    const api = await storeApi(t, store.id);
    const first = [...shop.products.values()][0];
    // Changed in the import's second too, so both reads of it differ from the mirror.
    standin.editProduct(shop, first.id, { title: "Before the sync" });
    // The clock runs again (Shopify's bucket refills with it); the change is two seconds on.
    const second = heldAt as number;
    heldAt = null;
    const handle = standin.handle.bind(standin);
    let pages = 0;
    standin.handle = async (request, response) => {
      await handle(request, response);
      const last = standin.requests.at(-1);
      if (last?.shop === domain && last.query.includes("page: products(") && ++pages === 1) {
        heldAt = second + 2000;
        // Its webhook is lost: this sync alone is to bring the change.
        standin.webhooks.mode = "hold";
        standin.editProduct(shop, first.id, { title: "Changed between pages" });
        standin.webhooks.mode = "auto";
        heldAt = null;
      }
    };
    try {
      await requestCatalogSync(t.runtime.ctx, t.runtime.ctx.db, store.id);
      await settle();
      assert.deepEqual(await standin.webhooks.release({ drop: [0] }), []);
    } finally {
      standin.handle = handle;
    }
    assert.ok(pages >= 2, `pages: ${pages}`);
    const res = await t.admin.get(`/admin/stores/${store.id}/sync`);
    expectStatus(res, 200);
    assert.equal(res.body.data.mirror.last_error, null);
    assert.equal((await mirroredProduct(api, first.id)).title, "Changed between pages");
  });
});

describe("two syncs of one store at once, both reads in the watermark's second", () => {
  test("the older read, committing last, does not overwrite the newer (it reads again)", async () => {
    const { shop, api, storeId } = await attached();
    const product = [...shop.products.values()][0];
    holdSecond();
    standin.editProduct(shop, product.id, { title: "First" });
    await settle();
    assert.equal((await mirroredProduct(api, product.id)).title, "First");
    const watermarkBefore = async () =>
      (
        await t.runtime.ctx.db
          .selectFrom("mirror_sync_states")
          .select("watermark")
          .where("store_id", "=", storeId)
          .executeTakeFirstOrThrow()
      ).watermark;
    const mark = await watermarkBefore();
    // Both changes' webhooks are lost: the two syncs below, as two workers run them, are all there is.
    standin.webhooks.mode = "hold";
    standin.editProduct(shop, product.id, { title: "Older" });
    // Sync A reads its locations and products (title "Older"), then waits before its next request
    // until sync B has read and committed.
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let blocked: () => void = () => {};
    const aBlocked = new Promise<void>((resolve) => {
      blocked = resolve;
    });
    let productsRead = false;
    let holding = true;
    const handle = standin.handle.bind(standin);
    standin.handle = async (request, response) => {
      if (holding && productsRead) {
        holding = false;
        blocked();
        await gate;
      }
      await handle(request, response);
      const last = standin.requests.at(-1);
      if (last?.query.includes("page: products(")) productsRead = true;
    };
    try {
      const a = syncCatalog(t.runtime.ctx, storeId);
      await aBlocked;
      standin.editProduct(shop, product.id, { title: "Newer" });
      assert.equal(product.updatedAt.getTime(), heldAt);
      await syncCatalog(t.runtime.ctx, storeId);
      assert.equal((await mirroredProduct(api, product.id)).title, "Newer");
      // B's read found nothing past the watermark: it is as it was, the check A's commit makes.
      assert.equal(await watermarkBefore(), mark);
      release();
      await a;
    } finally {
      release();
      standin.handle = handle;
      standin.webhooks.mode = "auto";
      await standin.webhooks.release({ drop: standin.webhooks.held.map((_, i) => i) });
    }
    // Was: "Older" (A's read, from before B's, committed last), until the store's next sync.
    assert.equal((await mirroredProduct(api, product.id)).title, "Newer");
    heldAt = null;
  });
});

describe("a read longer than the overlap", () => {
  test("a level changed after its location was read is found by the next read, though a later one was read", async () => {
    // Levels are read location by location. Right after the first location's page, the clock runs
    // four minutes (a slow read: Shopify's and the service's), a level of that location changes two
    // minutes in and one of the second location at the end; only the second is in this read. Its
    // time, taken as the watermark, put the first change more than the overlap before the next
    // search's start: missed for good. The watermark less the read's length is before it.
    const { shop, api, storeId } = await attached(2);
    const domain = shop.domain;
    const handle = standin.handle.bind(standin);
    let early: Level | null = null;
    let late: Level | null = null;
    standin.handle = async (request, response) => {
      await handle(request, response);
      const last = standin.requests.at(-1);
      if (early || last?.shop !== domain || !last.query.includes("LevelChanges")) return;
      const read = parseGid(last.variables.id);
      early = [...shop.levels.values()].find((l) => l.locationId === read)!;
      late = [...shop.levels.values()].find((l) => l.locationId !== read)!;
      standin.webhooks.mode = "hold";
      clock.advance(120_000);
      standin.setQuantity(shop, early.itemId, early.locationId, "available", 41);
      clock.advance(120_000);
      standin.setQuantity(shop, late.itemId, late.locationId, "available", 42);
      standin.webhooks.mode = "auto";
    };
    try {
      await syncCatalog(t.runtime.ctx, storeId);
    } finally {
      standin.handle = handle;
    }
    const [a, b] = [early as unknown as Level, late as unknown as Level];
    assert.equal((await mirrorLevelRow(api, b.itemId, b.locationId)).available, 42);
    assert.equal((await mirrorLevelRow(api, a.itemId, a.locationId)).available, 10);
    // Both webhooks lost: the next read alone is to bring the first change.
    await standin.webhooks.release({ drop: [0, 1] });
    clock.advance(1000);
    await syncCatalog(t.runtime.ctx, storeId);
    assert.equal((await mirrorLevelRow(api, a.itemId, a.locationId)).available, 41);
  });
});

const parseGid = (gid: unknown) => Number(String(gid).split("/").pop());
