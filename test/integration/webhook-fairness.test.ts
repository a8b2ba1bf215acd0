/**
 * Fair delivery across stores (issue 18 item 7): store A's eight new endpoints hang, and A's events are
 * queued ahead of store B's. B's healthy endpoint must get its event before the first of A's hanging
 * attempts is given up: without fairness A's fan-outs take every worker slot and B waits for them.
 * The bound is the sender's own timeout, observed in the same run (the receiver sees the connection
 * abandoned), never a wall-clock figure.
 */
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { ManualClock } from "../../src/clock.ts";
import { emit } from "../../src/events/outbox.ts";
import { foundationModule } from "../../src/modules/foundation.ts";
import { createWebhooksModule } from "../../src/modules/webhooks.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { makePki, type Pki } from "../helpers/pki.ts";

const HANGING_ENDPOINTS = 8;
const A_EVENTS = 12;

let pki: Pki;
let server: Server;
let port = 0;
let t: TestApp;
const hangingSeen: number[] = [];
const abandoned: number[] = [];
const healthySeen: number[] = [];

before(async () => {
  pki = makePki({ subjectAltNames: ["DNS:hooks.test", "IP:127.0.0.1"] });
  server = createServer({ key: pki.key, cert: pki.cert });
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    if (req.url?.startsWith("/hang/")) {
      hangingSeen.push(performance.now());
      res.on("close", () => abandoned.push(performance.now()));
      return; // never answers: the sender gives up at its timeout
    }
    req.on("end", () => {
      healthySeen.push(performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  t = await startTestApp({
    clock: new ManualClock("2030-05-01T00:00:00.000Z"),
    env: { WORKER_CONCURRENCY: "8" },
    modules: [
      foundationModule,
      createWebhooksModule({ ca: pki.ca, timeoutMs: 5000, resolve: async () => ["127.0.0.1"] }),
    ],
  });
});

after(async () => {
  await t.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  pki.dispose();
});

async function hook(s: TestStore, path: string) {
  const res = await s.api.post("/v2/webhooks", { url: `https://hooks.test:${port}${path}`, events: ["*"] });
  assert.equal(res.status, 201, JSON.stringify(res.body));
}

async function emitCreated(storeId: number, subjectId: number) {
  const ctx = t.runtime.ctx;
  await ctx.db.transaction().execute((trx) =>
    emit(ctx, trx, {
      storeId,
      name: "supplier.created",
      subjectType: "supplier",
      subjectId,
      data: { id: subjectId },
    }),
  );
}

async function until(condition: () => boolean) {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

test("one store's hanging endpoints do not hold up another store's healthy endpoint", async (context) => {
  const a = await t.createStore();
  const b = await t.createStore();
  for (let i = 0; i < HANGING_ENDPOINTS; i++) await hook(a, `/hang/${i}`);
  await hook(b, "/ok");
  for (let i = 1; i <= A_EVENTS; i++) await emitCreated(a.id, i);
  await emitCreated(b.id, 1);

  const start = performance.now();
  t.runtime.worker.start();
  await until(() => healthySeen.length === 1 && abandoned.length > 0);

  const healthyAfter = healthySeen[0] - start;
  const firstGivenUp = abandoned[0] - start;
  context.diagnostic(
    `B's event after ${healthyAfter.toFixed(0)} ms; A's first attempt given up after ${firstGivenUp.toFixed(0)} ms; ` +
      `A's attempts started before then: ${hangingSeen.filter((at) => at < abandoned[0]).length}`,
  );
  assert.ok(
    healthySeen[0] < abandoned[0],
    `B's event arrived ${healthyAfter.toFixed(0)} ms after start, after A's first attempt was given up ` +
      `(${firstGivenUp.toFixed(0)} ms): it waited for A's hanging deliveries`,
  );
  // A was not starved either: its fan-outs were under way meanwhile.
  assert.ok(hangingSeen.filter((at) => at < abandoned[0]).length >= HANGING_ENDPOINTS);
});
