/**
 * Shopify level versions of equal time (docs/decisions.md, "Shopify level versions of equal time"): a
 * level's version is its `updatedAt`, and Shopify's DateTime has whole seconds, so two changes of one
 * level in one second give two reports of one version. Before, the second was "not newer" and ignored:
 * the mirror stayed on the first until the level's next change (reconciliation compares versions the
 * same way). Now, of two reports of one version with other quantities, the one read later wins. The
 * stand-in's clock is held on one whole second while both changes are made, as Shopify would show them.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/clock.ts";
import { inTransaction } from "../../src/db/transaction.ts";
import { refreshLevels } from "../../src/domain/stock/index.ts";
import { syncCatalog } from "../../src/platform/catalog-sync.ts";
import { reconcileShop } from "../../src/platform/shopify/inbound/index.ts";
import type { Client, TestApp } from "../helpers/app.ts";
import { attachByToken, standinShop, startShopifyTestApp, storeApi } from "../helpers/shopify.ts";
import { mirrorLevelRow, recordTestMovements } from "../helpers/stock.ts";
import type { ShopifyStandin } from "../shopify-standin/index.ts";
import type { ShopState } from "../shopify-standin/state.ts";

let t: TestApp;
let standin: ShopifyStandin;
let clock: ManualClock;
let shop: ShopState;
let storeId: number;
let api: Client;
let items: number[];
let location: number;
/** The stand-in's clock held on one second (null: it runs). */
let heldAt: number | null = null;
let standinNow: () => number;

before(async () => {
  clock = new ManualClock();
  const realStart = Date.now();
  standinNow = () => heldAt ?? clock.now().getTime() + (Date.now() - realStart);
  ({ t, standin } = await startShopifyTestApp({ app: { clock }, standin: { now: () => standinNow() } }));
  const made = standinShop(standin, { products: 3, locations: 1 });
  shop = made.shop;
  storeId = (await attachByToken(t, made.domain, made.accessToken)).id;
  await t.drain();
  api = await storeApi(t, storeId);
  items = [...shop.variants.values()].map((v) => v.inventoryItemId);
  location = [...shop.locations.keys()][0];
});
after(async () => {
  await t.close();
  await standin.close();
});

/** Holds the stand-in's clock on the next whole second: every change until `run()` has that updatedAt. */
function holdSecond(): void {
  heldAt = Math.ceil((standinNow() + 1) / 1000) * 1000;
}

const shown = async (item: number) => (await mirrorLevelRow(api, item, location)).available;
const onShopify = (item: number) => shop.level(item, location)!.quantities.available;
const sell = (item: number, available: number) =>
  standin.setQuantity(shop, item, location, "available", available);

/** The service's next read of Shopify: a second later by its clock, the incremental sync. */
async function readLater(): Promise<void> {
  clock.advance(1000);
  await syncCatalog(t.runtime.ctx, storeId);
}

describe("two changes of one Shopify level in one second", () => {
  let subject = 100;

  test("a sale in the second of our push's read-back shows at the next read, and reconciliation keeps it", async () => {
    const item = items[0];
    heldAt = null;
    sell(item, 20);
    await readLater();
    assert.equal(await shown(item), 20);
    holdSecond();
    await recordTestMovements(t, storeId, ++subject, [
      { inventoryItemId: item, locationId: location, availableDelta: -3, reason: "correction" },
    ]);
    await t.drain(); // pushed and read back: 17 at this second
    assert.equal(onShopify(item), 17);
    assert.equal(await shown(item), 17);
    sell(item, 15); // the same second on Shopify
    assert.equal(shop.level(item, location)!.updatedAt.getTime(), heldAt);
    heldAt = null;
    await readLater();
    assert.equal(await shown(item), 15, "the later read of the same version");
    clock.advance(1000);
    assert.deepEqual(await reconcileShop(t.runtime.ctx, storeId), { checked: shop.levels.size, repaired: 0 });
    assert.equal(await shown(item), 15);
  });

  test("two sales in one second, a read between them: the read after the second shows the last", async () => {
    const item = items[1];
    heldAt = null;
    sell(item, 20);
    await readLater();
    holdSecond();
    sell(item, 14);
    await readLater();
    assert.equal(await shown(item), 14);
    sell(item, 13);
    heldAt = null;
    await readLater();
    assert.equal(await shown(item), 13);
    await readLater(); // read again, the same: no change
    assert.equal(await shown(item), 13);
  });

  test("of two reports of one version, one read earlier or at an unknown time does not replace the later one", async () => {
    const item = items[2];
    const ctx = t.runtime.ctx;
    const at = (ms: number) => new Date(clock.now().getTime() + ms);
    const version = Date.parse("2030-01-01T00:00:00Z");
    const report = (available: number, readAt: Date | null) => ({
      inventoryItemId: item,
      locationId: location,
      available,
      onHand: available,
      committed: 0,
      incoming: 0,
      version,
      updatedAt: new Date(version),
      readAt,
    });
    const take = (available: number, readAt: Date | null) =>
      inTransaction(ctx.db, (trx) => refreshLevels(ctx, trx, storeId, [], [report(available, readAt)]));
    await take(9, at(2000));
    assert.equal(await shown(item), 9);
    await take(8, at(1000)); // read before the one held, taken in after it
    assert.equal(await shown(item), 9);
    await take(7, null); // a bulk read's: its read time unknown
    assert.equal(await shown(item), 9);
    await take(6, at(3000));
    assert.equal(await shown(item), 6);
  });
});
