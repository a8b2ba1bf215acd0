/**
 * How long the console's list pages take on loopback with 50 rows (issue 20 item 8: under 300 ms):
 * every list page of the console (purchase orders, suppliers, a supplier's catalog, stock, low stock,
 * stock adjustments, alert rules, the request log, API keys, staff), each fetched over real HTTP by a
 * signed-in operator, after a warm-up, 20 times; the median and the slowest are printed, with the rows
 * the page showed. A figure, not a test: run it on an idle machine (`node --import tsx
 * scripts/console-page-speed.ts`; with TEST_DATABASE_URL=postgres://… it runs on PostgreSQL) and copy
 * the table into docs/performance.md.
 */
import { startTestApp } from "../test/helpers/app.ts";
import { ConsoleAgent } from "../test/helpers/console-agent.ts";
import {
  createOrderedOrder,
  createSupplier,
  listLocations,
  trackedVariants,
} from "../test/helpers/factories.ts";

const ROWS = 50;
const RUNS = 20;

const t = await startTestApp();
try {
  await t.runtime.app.listen({ host: "127.0.0.1", port: 0 });
  const base = `http://127.0.0.1:${(t.runtime.app.server.address() as { port: number }).port}`;
  const store = await t.createStore({ seed: "demo" });
  await t.drain();
  const variants = (await trackedVariants(store.api)).slice(0, 3);
  const suppliers = [];
  for (let i = 0; i < ROWS; i++)
    suppliers.push(await createSupplier(store.api, { name: `Speed supplier ${i}` }));
  for (let i = 0; i < ROWS; i++)
    await createOrderedOrder(store.api, {
      supplier_id: suppliers[i].id,
      lines: variants.map((v) => ({ variant_id: v.id, quantity: 2, unit_cost: "3.00" })),
    });
  // A supplier's catalog of 50 items, with tiers.
  const tracked = await trackedVariants(store.api);
  await must(
    store.api.put(`/v2/suppliers/${suppliers[0].id}/catalog`, {
      rows: tracked.slice(0, ROWS).map((v, i) => ({
        variant_id: v.id,
        supplier_sku: `SP-${i}`,
        pack_size: 6,
        tiers: [
          { min_qty: 1, price: "4.50" },
          { min_qty: 24, price: "4.00" },
        ],
      })),
    }),
  );
  // Every tracked item low at every location, and 50 of them with a reorder point and max stock.
  const [location] = await listLocations(store.api);
  await must(
    t.admin.put(`/admin/stores/${store.id}/alert_rules`, {
      low_stock_threshold: 100_000,
      items: tracked.slice(0, ROWS).map((v) => ({
        inventory_item_id: v.inventory_item_id,
        location_id: location.id,
        reorder_point: 5,
        max_stock: 50,
      })),
    }),
  );
  // 50 draft adjustments (the list's default), 50 API keys.
  for (let i = 0; i < ROWS; i++)
    await must(
      store.api.post("/v2/stock_adjustments", {
        location_id: location.id,
        reason: "restock",
        lines: [{ variant_id: tracked[i % tracked.length].id, delta: 1 }],
      }),
    );
  for (let i = 0; i < ROWS; i++)
    await must(t.admin.post(`/admin/stores/${store.id}/keys`, { name: `Speed key ${i}`, scopes: ["read"] }));
  await t.drain();
  // 50 staff, after the drain: their invitation mails are not what is measured.
  for (let i = 0; i < ROWS; i++)
    await must(
      t.admin.post(`/admin/stores/${store.id}/staff`, { email: `staff${i}@speed.test`, role: "viewer" }),
    );
  const agent = new ConsoleAgent(t);
  await agent.login();
  const cookie = [...agent.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; ");
  const at = (rest: string) => `/console/stores/${store.id}${rest}`;
  const pages = {
    "purchase orders": at("/purchase_orders"),
    suppliers: at("/suppliers"),
    "a supplier and its catalog": at(`/suppliers/${suppliers[0].id}`),
    stock: at("/stock"),
    "low stock": at("/stock/low"),
    "stock adjustments": at("/stock_adjustments"),
    "alert rules": at("/alert_rules"),
    "request log": at("/request_log"),
    "API keys": at("/keys"),
    staff: at("/staff"),
  };
  const rows: string[] = [];
  for (const [name, path] of Object.entries(pages)) {
    const times: number[] = [];
    let shown = 0;
    for (let run = 0; run < RUNS + 3; run++) {
      const started = performance.now();
      const res = await fetch(`${base}${path}`, { headers: { cookie } });
      const body = await res.text();
      const ms = performance.now() - started;
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      // The rows of the page's longest table.
      shown = Math.max(
        0,
        ...[...body.matchAll(/<tbody>([\s\S]*?)<\/tbody>/g)].map(
          (m) => (m[1].match(/<tr[\s>]/g) ?? []).length,
        ),
      );
      if (run >= 3) times.push(ms);
    }
    times.sort((a, b) => a - b);
    rows.push(
      `| ${name} | ${shown} | ${times[Math.floor(RUNS / 2)].toFixed(1)} | ${times[RUNS - 1].toFixed(1)} |`,
    );
  }
  console.log(`Database: ${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "PGlite"}`);
  console.log("| page | rows | median ms | slowest ms |\n|---|---|---|---|");
  console.log(rows.join("\n"));
} finally {
  await t.close();
}

/** A seeding call that must succeed. */
async function must(call: Promise<{ status: number; body: unknown }>): Promise<void> {
  const res = await call;
  if (res.status >= 300) throw new Error(`seeding refused: ${res.status} ${JSON.stringify(res.body)}`);
}
