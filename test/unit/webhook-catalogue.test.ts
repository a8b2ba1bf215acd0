import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  ALL_EVENTS,
  EVENT_CATALOGUE,
  FOLD_WINDOW_MS,
  foldKey,
  foldRunAt,
  foldsWithin,
  isCatalogueEvent,
  subscribes,
} from "../../src/domain/webhooks/catalogue.ts";
import { envelopeBody } from "../../src/domain/webhooks/deliver.ts";

describe("webhook event catalogue rules", () => {
  test("the catalogue is the contract's 24 names", () => {
    assert.equal(EVENT_CATALOGUE.length, 24);
    assert.ok(isCatalogueEvent("purchase_order.receipt_recorded"));
    assert.ok(!isCatalogueEvent("purchase_order.exploded"));
    assert.ok(!isCatalogueEvent(ALL_EVENTS));
  });

  test("only .updated events fold; every lifecycle event is delivered on its own", () => {
    assert.deepEqual(EVENT_CATALOGUE.filter(foldsWithin), [
      "purchase_order.updated",
      "supplier.updated",
      "stock_adjustment.updated",
    ]);
  });

  test("* subscribes to every event, including names added later, but never to webhook.test", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z_]+\.[a-z_]+$/), (name) => {
        assert.equal(subscribes([ALL_EVENTS], name), name !== "webhook.test");
      }),
    );
    assert.ok(subscribes(["supplier.created"], "supplier.created"));
    assert.ok(!subscribes(["supplier.created"], "supplier.updated"));
    assert.ok(!subscribes(["webhook.test"], "webhook.test"));
  });

  test("a fold window opens with the first update and is never pushed back by later ones", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: FOLD_WINDOW_MS - 1 }), { minLength: 1, maxLength: 20 }),
        (gaps) => {
          const start = Date.UTC(2030, 0, 1);
          let pending: Date | null = null;
          let now = start;
          for (const gap of gaps) {
            now += gap;
            if (pending !== null && now >= pending.getTime()) break; // the job ran; a new window opens
            pending = foldRunAt(new Date(now), pending);
          }
          assert.equal(pending?.getTime(), start + gaps[0] + FOLD_WINDOW_MS);
        },
      ),
    );
  });

  test("fold keys separate stores, records and event names", () => {
    const keys = new Set([
      foldKey(1, "supplier", 7, "supplier.updated"),
      foldKey(2, "supplier", 7, "supplier.updated"),
      foldKey(1, "supplier", 8, "supplier.updated"),
      foldKey(1, "purchase_order", 7, "purchase_order.updated"),
    ]);
    assert.equal(keys.size, 4);
  });

  test("the envelope is {id, event, api_version, occurred_at, shop, data, ...extra}", () => {
    const body = envelopeBody({
      seq: 1,
      id: "evt_1",
      store_id: 4,
      name: "purchase_order.receipt_recorded",
      subject_type: "purchase_order",
      subject_id: 3,
      data: { id: 3 },
      extra: { receipt: { id: 9 } },
      occurred_at: new Date("2030-01-01T00:00:00.000Z"),
      shop_domain: "shop.test",
    });
    assert.equal(
      body,
      '{"id":"evt_1","event":"purchase_order.receipt_recorded","api_version":2,"occurred_at":"2030-01-01T00:00:00.000Z","shop":{"id":4,"domain":"shop.test"},"data":{"id":3},"receipt":{"id":9}}',
    );
  });
});
