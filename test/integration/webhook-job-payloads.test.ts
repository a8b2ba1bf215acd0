/**
 * Delivery jobs whose payload lacks the shape their job writes fail at once (PermanentJobError), with
 * the field named, instead of querying with NaN and being retried until their attempts run out.
 */
import { after, before, describe } from "node:test";
import { foundationModule } from "../../src/modules/foundation.ts";
import { createWebhooksModule } from "../../src/modules/webhooks.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { type PayloadRefusal, testPayloadRefusals } from "../helpers/jobs.ts";

describe("delivery job payloads", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({
      modules: [foundationModule, createWebhooksModule({ resolve: async () => ["127.0.0.1"] })],
    });
  });
  after(() => t.close());

  const cases: PayloadRefusal[] = [
    ["webhooks.fanout", { seq: "x" }, "invalid job payload: seq is not a positive integer"],
    [
      "webhooks.fold",
      { seq: 1, store_id: 1, subject_type: "supplier", subject_id: 2.5, name: "supplier.updated" },
      "invalid job payload: subject_id is not a positive integer",
    ],
    [
      "webhooks.fold",
      { seq: 1, store_id: 1, subject_type: "", subject_id: 2, name: "supplier.updated" },
      "invalid job payload: subject_type is not a non-empty string",
    ],
    ["webhooks.send", { webhook_id: 1, retry: true }, "invalid job payload: items is not a non-empty array"],
    [
      "webhooks.send",
      { webhook_id: 1, items: [[1, 0]], retry: true },
      "invalid job payload: items.0.1 is not a positive integer",
    ],
    ["webhooks.send", { webhook_id: 1, items: [[1, 1]] }, "invalid job payload: retry is not a boolean"],
    ["webhooks.lane", { store_id: null }, "invalid job payload: store_id is not a positive integer"],
    ["webhooks.disabled_email", {}, "invalid job payload: webhook_id is not a positive integer"],
  ];

  testPayloadRefusals(() => t, cases);
});
