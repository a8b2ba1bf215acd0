/**
 * The console shows a Shopify store's platform state (issue 19 item 7): the store list names the
 * platform and the shop's status; the overview has a Shopify section (shop, status, import, last
 * webhook and reconciliation, API version, scopes) and, when disconnected, why and what waits.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setShopStatus, TOKEN_REFUSED_REASON } from "../../src/platform/shopify/index.ts";
import type { TestApp } from "../helpers/app.ts";
import { ConsoleAgent, pageText } from "../helpers/console-agent.ts";
import { attachByToken, standinShop, startShopifyTestApp } from "../helpers/shopify.ts";
import type { ShopifyStandin } from "../shopify-standin/index.ts";

let t: TestApp;
let standin: ShopifyStandin;
let agent: ConsoleAgent;
let storeId: number;
let domain: string;

before(async () => {
  ({ t, standin } = await startShopifyTestApp());
  const made = standinShop(standin, { products: 1 }, { name: "Console Shop", timezone: "Asia/Kolkata" });
  domain = made.domain;
  storeId = (await attachByToken(t, domain, made.accessToken)).id;
  agent = new ConsoleAgent(t);
  await agent.login();
});
after(async () => {
  await t.close();
  await standin.close();
});

describe("the console shows a Shopify store's state", () => {
  test("importing, then connected with the time of the import", async () => {
    const list = await agent.get("/console/stores");
    assert.equal(list.status, 200);
    assert.match(
      pageText(list.body),
      new RegExp(`Console Shop ${domain.replace(/\./g, "\\.")} USD \\S+ Shopify, importing`),
    );
    const importing = pageText((await agent.get(`/console/stores/${storeId}`)).body);
    assert.match(
      importing,
      new RegExp(
        `Shopify Shop ${domain.replace(/\./g, "\\.")} Status Importing the shop's catalog Import error – Imported –`,
      ),
    );

    await t.drain();
    const at = t.clock.now().toISOString();
    const connected = (await agent.get(`/console/stores/${storeId}`)).body;
    assert.match(
      pageText(connected),
      /Status Connected Import error – Imported \S.* Last webhook – Last reconciliation – API version 2026-10 Scopes read_products, read_inventory, write_inventory, read_locations/,
    );
    assert.ok(connected.includes(`datetime="${at}"`), "the import's time is shown");
    // In the shop's zone, Kolkata (+05:30 all year), as the console prints every moment.
    const local = new Date(Date.parse(at) + 5.5 * 3600_000);
    const month = local.toLocaleString("en-US", { month: "short", timeZone: "UTC" });
    const when = `${local.getUTCDate()} ${month} ${local.getUTCFullYear()}, ${local.toISOString().slice(11, 16)}`;
    assert.match(pageText(connected), new RegExp(`Imported ${when} Last webhook`));
    assert.match(pageText((await agent.get("/console/stores")).body), /Shopify, connected/);
  });

  test("disconnected: the reason, and that stock changes wait", async () => {
    await setShopStatus(t.runtime.ctx.db, storeId, "disconnected", TOKEN_REFUSED_REASON);
    const text = pageText((await agent.get(`/console/stores/${storeId}`)).body);
    assert.ok(
      text.includes(
        "Stock changes wait until the shop is reconnected (a new access token, or installing the app again); the catalog stays readable.",
      ),
      text,
    );
    assert.ok(text.includes(`Status Disconnected: ${TOKEN_REFUSED_REASON}`), text);
    assert.match(pageText((await agent.get("/console/stores")).body), /Shopify, disconnected/);
  });

  test("a simulated store has no Shopify section", async () => {
    const store = await t.createStore();
    const text = pageText((await agent.get(`/console/stores/${store.id}`)).body);
    assert.ok(!text.includes("Shopify"), text);
  });
});
