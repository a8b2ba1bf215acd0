/**
 * How long the console's list pages take on loopback with 50 rows (issue 20 item 8: under 300 ms):
 * the purchase order list, the suppliers list and the stock list, each fetched over real HTTP by a
 * signed-in operator, after a warm-up, 20 times; the median and the slowest are printed. A figure, not
 * a test: run it on an idle machine (`node --import tsx scripts/console-page-speed.ts`; with
 * TEST_DATABASE_URL=postgres://… it runs on PostgreSQL) and copy the table into docs/performance.md.
 */
import { startTestApp } from "../test/helpers/app.ts";
import { ConsoleAgent } from "../test/helpers/console-agent.ts";
import { createOrderedOrder, createSupplier, trackedVariants } from "../test/helpers/factories.ts";

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
  await t.drain();
  const agent = new ConsoleAgent(t);
  await agent.login();
  const cookie = [...agent.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; ");
  const pages = {
    "purchase orders": `/console/stores/${store.id}/purchase_orders`,
    suppliers: `/console/stores/${store.id}/suppliers`,
    stock: `/console/stores/${store.id}/stock`,
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
      shown = (/<tbody>([\s\S]*?)<\/tbody>/.exec(body)?.[1].match(/<tr[\s>]/g) ?? []).length;
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
