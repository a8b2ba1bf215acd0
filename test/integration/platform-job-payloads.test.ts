/**
 * Platform jobs whose payload lacks the shape their job writes fail at once (PermanentJobError), with
 * the field named, instead of querying with NaN and being retried until their attempts run out.
 */
import { after, before, describe } from "node:test";
import { catalogModule } from "../../src/modules/catalog.ts";
import { foundationModule } from "../../src/modules/foundation.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { type PayloadRefusal, testPayloadRefusals } from "../helpers/jobs.ts";

describe("platform job payloads", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ modules: [foundationModule, catalogModule] });
  });
  after(() => t.close());

  const cases: PayloadRefusal[] = [
    [
      "platform.push",
      { subject_type: "receipt", subject_id: 7, movement_ids: [1] },
      "invalid job payload: store_id is not a positive integer",
    ],
    [
      "platform.push",
      { store_id: 1, subject_type: "invoice", subject_id: 7, movement_ids: [1] },
      "invalid job payload: subject_type is not a stock-moving record type",
    ],
    [
      "platform.push",
      { store_id: 1, subject_type: "receipt", subject_id: "7", movement_ids: [1] },
      "invalid job payload: subject_id is not a positive integer",
    ],
    [
      "platform.push",
      { store_id: 1, subject_type: "receipt", subject_id: 7, movement_ids: [1, 0] },
      "invalid job payload: movement_ids.1 is not a positive integer",
    ],
    [
      "platform.push",
      { store_id: 1, subject_type: "receipt", subject_id: 7, movement_ids: 3 },
      "invalid job payload: movement_ids is not an array",
    ],
    ["catalog.sync", { store_id: "x" }, "invalid job payload: store_id is not a positive integer"],
  ];

  testPayloadRefusals(() => t, cases);
});
