/**
 * `node --import tsx bench/queries.ts`: how many SQL statements each benchmarked request runs, counted
 * at the database driver (an in-memory PGlite, one request at a time through the production app), so
 * docs/performance.md states queries per request from a measurement rather than from reading. BEGIN,
 * COMMIT and SAVEPOINT are counted apart. The request log's buffered insert (one statement per 250 ms
 * for all requests together) is flushed before each request and not counted. VERBOSE=1 lists them.
 */
import { randomUUID } from "node:crypto";
import { loadConfig } from "../src/config.ts";
import { PGliteThread } from "../src/db/pglite-thread.ts";
import { createRuntime } from "../src/runtime.ts";
import { injectCaller, storeWithBulkCatalog } from "./lib/in-process-store.ts";

const statements: string[] = [];
let counting = false;
// The service's embedded database runs on a thread of its own (src/db/pglite-thread.ts); every
// statement crosses to it through PGliteThread.query, so that is where they are counted.
const original = PGliteThread.prototype.query;
PGliteThread.prototype.query = function (this: PGliteThread, query: string, params?: unknown[]) {
  if (counting) statements.push(query.replace(/\s+/g, " ").trim());
  return original.call(this, query, params);
} as typeof PGliteThread.prototype.query;

const ADMIN = "bench-admin-token-0123456789abcdef";
const config = loadConfig({
  DATA_DIR: ":memory:",
  DATABASE_URL: "",
  ADMIN_TOKEN: ADMIN,
  BOOTSTRAP: "none",
  WORKERS: "off",
  LOG_LEVEL: "silent",
});
const runtime = await createRuntime(config, { logger: false });
const { app, ctx } = runtime;

const call = injectCaller(app);

const rows: Array<{ path: string; statements: number; transactions: number; ms: number; tables: string }> =
  [];

async function count(label: string, fn: () => Promise<unknown>): Promise<void> {
  await ctx.requestLog.flush();
  statements.length = 0;
  counting = true;
  const started = performance.now();
  try {
    await fn();
  } finally {
    counting = false;
  }
  const ms = performance.now() - started;
  const control = /^(begin|commit|rollback|savepoint|release savepoint)/i;
  const work = statements.filter((s) => !control.test(s));
  const tables = new Set<string>();
  for (const s of work) {
    for (const m of s.matchAll(/\b(?:from|into|update|join)\s+"?([a-z_]+)"?/gi))
      if (!["set", "skip", "unnest", "lateral", "select", "of"].includes(m[1])) tables.add(m[1]);
  }
  if (process.env.VERBOSE) {
    console.log(`\n## ${label}`);
    for (const st of statements) console.log(`  ${st.slice(0, Number(process.env.WIDTH ?? 160))}`);
  }
  rows.push({
    path: label,
    statements: work.length,
    transactions: statements.filter((s) => /^begin/i.test(s)).length,
    ms,
    tables: [...tables].sort().join(", "),
  });
}

const { key, variants } = await storeWithBulkCatalog(call, () => runtime.worker.drain(), {
  admin: ADMIN,
  name: "Q",
  scopes: ["read", "write:purchase_orders", "write:suppliers", "write:inventory", "webhooks"],
  products: 20,
});
const locations = (await call("GET", "/v2/locations", key)).data as Array<{ id: number }>;
const suppliers: number[] = [];
for (let i = 0; i < 30; i++)
  suppliers.push((await call("POST", "/v2/suppliers", key, { name: `S${i}` })).data.id);
const lines = (n: number, offset = 0, quantity = 10) =>
  variants.slice(offset, offset + n).map((v) => ({ variant_id: v.id, quantity }));

await count("GET /v2/whoami", () => call("GET", "/v2/whoami", key));
await count("GET /v2/suppliers/{id}", () => call("GET", `/v2/suppliers/${suppliers[3]}`, key));
await count("GET /v2/suppliers?limit=250", () => call("GET", "/v2/suppliers?limit=250", key));
await count("GET /v2/variants?limit=250", () => call("GET", "/v2/variants?limit=250", key));
await count("GET /v2/variants?sku=", () => call("GET", `/v2/variants?sku=${variants[7].sku}`, key));
let order: { id: number } = { id: 0 };
await count("POST /v2/purchase_orders (100 lines)", async () => {
  order = (await call("POST", "/v2/purchase_orders", key, { supplier_id: suppliers[0], lines: lines(100) }))
    .data;
});
await count("GET /v2/purchase_orders/{id} (100 lines)", () =>
  call("GET", `/v2/purchase_orders/${order.id}`, key),
);
await count("GET /v2/purchase_orders?supplier_id=&status=draft&limit=50", () =>
  call("GET", `/v2/purchase_orders?supplier_id=${suppliers[0]}&status=draft&limit=50`, key),
);
await count("GET /v2/purchase_orders/{id}/pdf (100 lines)", () =>
  call("GET", `/v2/purchase_orders/${order.id}/pdf`, key),
);
const fifty = (
  await call("POST", "/v2/purchase_orders", key, {
    supplier_id: suppliers[1],
    location_id: locations[0].id,
    lines: lines(50, 100, 1000),
  })
).data;
await count("POST /v2/purchase_orders/{id}/mark_ordered (50 lines)", () =>
  call("POST", `/v2/purchase_orders/${fifty.id}/mark_ordered`, key, {}),
);
const ordered = await call("GET", `/v2/purchase_orders/${fifty.id}`, key);
await runtime.worker.drain();
await count("POST /v2/purchase_orders/{id}/receipts (50 lines)", () =>
  call(
    "POST",
    `/v2/purchase_orders/${fifty.id}/receipts`,
    key,
    { lines: ordered.data.lines.map((l: { id: number }) => ({ line_id: l.id, quantity: 1 })) },
    { "idempotency-key": randomUUID() },
  ),
);
await count("worker: every job a 50-line receipt queued (platform push)", () => runtime.worker.drain());
let adjustment: { id: number } = { id: 0 };
await count("POST /v2/stock_adjustments (200 lines)", async () => {
  adjustment = (
    await call("POST", "/v2/stock_adjustments", key, {
      location_id: locations[0].id,
      lines: variants.slice(200, 400).map((v, i) => ({ variant_id: v.id, delta: (i % 5) + 1 })),
    })
  ).data;
});
await count("POST /v2/stock_adjustments/{id}/apply (200 lines)", () =>
  call("POST", `/v2/stock_adjustments/${adjustment.id}/apply`, key, undefined, {
    "idempotency-key": randomUUID(),
  }),
);
await count("worker: every job a 200-line apply queued (platform push)", () => runtime.worker.drain());
await count("POST /v2/suppliers (the webhook scenario's event source)", () =>
  call("POST", "/v2/suppliers", key, { name: "Event source" }),
);

await runtime.close();
console.log("| request | statements | transactions | ms (PGlite, one run) | tables |");
console.log("|---|---:|---:|---:|---|");
for (const r of rows)
  console.log(`| ${r.path} | ${r.statements} | ${r.transactions} | ${r.ms.toFixed(1)} | ${r.tables} |`);
