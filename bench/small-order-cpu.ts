/**
 * `node --import tsx bench/small-order-cpu.ts`: what a kept 3-line order's GET costs against a
 * variant's and a supplier's (issue 22 item 2). The service runs in this process on a fresh database
 * (PostgreSQL: DATABASE_URL or the local server; `DB=pglite`: a fresh PGlite directory), workers off:
 * a store of 100 variants, SUPPLIERS suppliers (20), BIG_ORDERS 100-line orders (0; the full bench's
 * order-create leaves ~1,600 before its order-get-small), then 20 orders of 3 lines, each read once
 * (its answer kept). ANALYZE: `1` (default) analyses every table then, `0` never, `before` runs the
 * embedded maintenance's pass before the big orders (the tables it finds then).
 *
 * Routes (ROUNDS rounds, REQUESTS each, CONCURRENCY at a time through `app.inject`, alternated; ONLY
 * picks among variant, supplier, order): this process's CPU a request (its main thread apart), the
 * backends' (their schedstat; PostgreSQL), statements (`xact_commit`), answer bytes. Then each record's
 * statement alone, STATEMENT_ROUNDS rounds of RUNS: on PostgreSQL as authentication sends it (the key
 * lookup with the record) on a connection of its own, its backend's CPU an execution, and how often
 * it was planned afresh (`pg_prepared_statements`); on PGlite the record's statement through the
 * service's handle, the process's CPU an execution. `ALT_<NAME>=file`: another statement text to
 * alternate with them (same parameters); `DUMP=prefix` writes the texts; `EXPLAIN=order,variant`
 * prints their plans as prepared statements run them.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { CompiledQuery, sql } from "kysely";
import pg from "pg";
import { maintainEmbeddedTables } from "../src/db/maintenance.ts";
import { keyLookupBeside, type ReadAhead } from "../src/db/prepared.ts";
import { variantReadAhead } from "../src/domain/catalog/repository.ts";
import { smallOrderReadAhead } from "../src/domain/purchase-orders/index.ts";
import { hashSecret } from "../src/domain/secrets.ts";
import { keyLookupWithStore } from "../src/http/plugins/key-lookup.ts";
import { backendsCpuNs, backendsCpuSince } from "./lib/cpu-probes.ts";
import { DEFAULT_DATABASE_URL } from "./lib/database.ts";
import { injectCaller, serviceInProcess, storeWithBulkCatalog } from "./lib/in-process-store.ts";

const ADMIN = "bench-admin-token-0123456789abcdef";
const REQUESTS = Number(process.env.REQUESTS ?? 3000);
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);
const ORDERS = 20;

class Done extends Error {}

const KIND = process.env.DB === "pglite" ? "pglite" : "postgres";
/** 100-line orders made before the small ones, as the full bench's order-create leaves ~1,600. */
const BIG_ORDERS = Number(process.env.BIG_ORDERS ?? 0);

/** The main thread's CPU so far, ns (its schedstat). */
const mainThreadNs = () =>
  Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]);

const { runtime, close } = await serviceInProcess(ADMIN, KIND);
try {
  const db = runtime.ctx.db;
  const app = runtime.app;
  const call = injectCaller(app);
  const { key, variants } = await storeWithBulkCatalog(call, () => runtime.worker.drain(), {
    admin: ADMIN,
    name: "S",
    scopes: ["read", "write:purchase_orders", "write:suppliers"],
    products: 2,
  });
  const suppliers: number[] = [];
  for (let i = 0; i < Number(process.env.SUPPLIERS ?? ORDERS); i++) {
    const made = await call("POST", "/v2/suppliers", key, {
      name: `Supplier ${i + 1}`,
      currency: "USD",
      email: `orders${i + 1}@supplier.example`,
    });
    suppliers.push(made.data.id);
  }
  // As the embedded database's maintenance leaves a store whose orders came after its last tick.
  if (process.env.ANALYZE === "before")
    console.log("maintained:", (await maintainEmbeddedTables(db)).join(", "));
  for (let i = 0; i < BIG_ORDERS; i++) {
    await call("POST", "/v2/purchase_orders", key, {
      supplier_id: suppliers[i % ORDERS],
      reference: `BIG-${i + 1}`,
      lines: Array.from({ length: 100 }, (_, j) => ({
        variant_id: variants[(i + j) % variants.length].id,
        quantity: 12 + (j % 5),
      })),
    });
  }
  const orders: number[] = [];
  for (let i = 0; i < ORDERS; i++) {
    const made = await call("POST", "/v2/purchase_orders", key, {
      supplier_id: suppliers[i],
      reference: `SMALL-${i + 1}`,
      lines: [0, 1, 2].map((j) => ({
        variant_id: variants[(i * 3 + j) % variants.length].id,
        quantity: 12 + j,
      })),
    });
    orders.push(made.data.id);
  }
  // Each order read once: its answer kept, its next read the version's statement.
  for (const id of orders) await call("GET", `/v2/purchase_orders/${id}`, key);
  if (process.env.ANALYZE !== "0" && process.env.ANALYZE !== "before") await sql`analyze`.execute(db);

  const paths: Record<string, string[]> = {
    variant: variants.slice(0, ORDERS).map((v) => `/v2/variants/${v.id}`),
    supplier: suppliers.map((id) => `/v2/suppliers/${id}`),
    order: orders.map((id) => `/v2/purchase_orders/${id}`),
  };
  const headers = { authorization: `Bearer ${key}` };
  let bytes = 0;
  const runMany = async (list: string[], n: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < n) {
          const url = list[next++ % list.length];
          const res = await app.inject({ method: "GET", url, headers });
          if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
          bytes += res.rawPayload.byteLength;
        }
      }),
    );
  };
  const commits = async () =>
    Number(
      (
        await sql<{ n: string }>`select xact_commit::text as n from pg_stat_database
          where datname = current_database()`.execute(db)
      ).rows[0].n,
    );
  const measure = async (label: string) => {
    await runMany(paths[label], 300);
    bytes = 0;
    const commitsBefore = await commits();
    const backendsBefore = KIND === "postgres" ? await backendsCpuNs(db) : new Map();
    const cpu = process.cpuUsage();
    const main = mainThreadNs();
    await runMany(paths[label], REQUESTS);
    const mainNs = mainThreadNs() - main;
    const used = process.cpuUsage(cpu);
    const backendNs = KIND === "postgres" ? backendsCpuSince(backendsBefore, await backendsCpuNs(db)) : 0;
    // Less the two reads of the counters themselves (each one statement).
    const statements = (await commits()) - commitsBefore - 2;
    console.log(
      `${label.padEnd(9)} API ${((used.user + used.system) / REQUESTS).toFixed(1).padStart(6)} µs` +
        ` (main thread ${(mainNs / 1000 / REQUESTS).toFixed(1)}),` +
        ` backends ${(backendNs / 1000 / REQUESTS).toFixed(1).padStart(6)} µs,` +
        ` statements ${(statements / REQUESTS).toFixed(2)}, answer ${(bytes / REQUESTS).toFixed(0)} B` +
        ` (load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]})`,
    );
  };
  const labels = (process.env.ONLY ?? "variant,supplier,order").split(",");
  for (let round = 0; round < ROUNDS; round++) {
    for (const label of round % 2 === 0 ? labels : [...labels].reverse()) await measure(label);
  }

  // The statements alone, as authentication sends them, on a connection of their own: its backend's CPU.
  if (KIND === "pglite") {
    // The records' statements alone on the embedded database (its key is kept in process), one at a
    // time: the process's CPU an execution (both threads).
    const storeId = (
      await sql<{ s: number }>`select store_id as s from purchase_orders where id = ${orders[0]}`.execute(db)
    ).rows[0].s;
    const alone: Record<string, { text: string; ids: number[] }> = {
      variant: {
        text: variantReadAhead.record.statement(db).text,
        ids: variants.slice(0, ORDERS).map((v) => Number(v.id)),
      },
      order: {
        text: (smallOrderReadAhead.instead?.(String(orders[0])) ?? smallOrderReadAhead).record.statement(db)
          .text,
        ids: orders,
      },
    };
    for (const [label, file] of Object.entries(process.env))
      if (label.startsWith("ALT_") && file)
        alone[label.slice(4).toLowerCase()] = { text: readFileSync(file, "utf8"), ids: orders };
    if (process.env.DUMP)
      for (const [label, { text }] of Object.entries(alone))
        writeFileSync(`${process.env.DUMP}-${label}.sql`, text);
    const runs = Number(process.env.RUNS ?? 2000);
    for (let round = 0; round < Number(process.env.STATEMENT_ROUNDS ?? 4); round++) {
      const line: string[] = [];
      for (const label of round % 2 === 0 ? Object.keys(alone) : Object.keys(alone).reverse()) {
        const { text, ids } = alone[label];
        const one = (i: number) => db.executeQuery(CompiledQuery.raw(text, [storeId, ids[i % ids.length]]));
        for (let i = 0; i < 50; i++) await one(i);
        const cpu = process.cpuUsage();
        for (let i = 0; i < runs; i++) await one(i);
        const used = process.cpuUsage(cpu);
        line.push(`${label} ${((used.user + used.system) / runs).toFixed(1)}`);
      }
      console.log(
        `process µs an execution: ${line.join(", ")} (load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]})`,
      );
    }
    for (const label of (process.env.EXPLAIN ?? "").split(",").filter(Boolean)) {
      const { text, ids } = alone[label];
      // As the kept statement runs: prepared, its generic plan once PostgreSQL picks it.
      await db.executeQuery(CompiledQuery.raw(`prepare explained_${label} as ${text}`));
      for (let i = 0; i < 10; i++)
        await db.executeQuery(
          CompiledQuery.raw(`execute explained_${label}(${storeId}, ${ids[i % ids.length]})`),
        );
      const plan = await db.executeQuery<Record<string, string>>(
        CompiledQuery.raw(`explain (analyze, buffers) execute explained_${label}(${storeId}, ${ids[0]})`),
      );
      console.log(`-- ${label}\n${plan.rows.map((r) => r["QUERY PLAN"]).join("\n")}`);
    }
    throw new Done();
  }
  const name = (await sql<{ n: string }>`select current_database() as n`.execute(db)).rows[0].n;
  const url = new URL(process.env.DATABASE_URL || DEFAULT_DATABASE_URL);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const pid = (await client.query("select pg_backend_pid() as pid")).rows[0].pid as number;
    const backendNs = () => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
    const hash = hashSecret(key);
    const combined = (ahead: ReadAhead) => keyLookupBeside(keyLookupWithStore, ahead).statement(db);
    const statements: Record<string, { name: string; text: string; ids: string[] }> = {
      key: { ...keyLookupWithStore.statement(db), ids: [] },
      variant: { ...combined(variantReadAhead), ids: variants.slice(0, ORDERS).map((v) => String(v.id)) },
      order: {
        ...combined(smallOrderReadAhead.instead?.(String(orders[0])) ?? smallOrderReadAhead),
        ids: orders.map(String),
      },
    };
    for (const [label, file] of Object.entries(process.env))
      if (label.startsWith("ALT_") && file)
        statements[label.slice(4).toLowerCase()] = {
          name: `alt_${label.slice(4).toLowerCase()}`,
          text: readFileSync(file, "utf8"),
          ids: orders.map(String),
        };
    const runs = Number(process.env.RUNS ?? 2000);
    const runOne = async (label: string, i: number) => {
      const s = statements[label];
      const values = s.ids.length ? [hash, s.ids[i % s.ids.length]] : [hash];
      const { rows } = await client.query({ name: s.name, text: s.text, values });
      if (rows.length !== 1) throw new Error(`${label}: ${rows.length} rows`);
      return rows[0];
    };
    for (const label of Object.keys(statements)) {
      const row = await runOne(label, 0);
      if (process.env.SHOW === "1") console.log(label, JSON.stringify(row).slice(0, 300));
    }
    const labels = Object.keys(statements);
    for (let round = 0; round < Number(process.env.STATEMENT_ROUNDS ?? 4); round++) {
      const line: string[] = [];
      for (const label of round % 2 === 0 ? labels : [...labels].reverse()) {
        for (let i = 0; i < 50; i++) await runOne(label, i);
        const before = backendNs();
        for (let i = 0; i < runs; i++) await runOne(label, i);
        line.push(`${label} ${((backendNs() - before) / 1000 / runs).toFixed(1)}`);
      }
      console.log(
        `backend µs an execution: ${line.join(", ")} (load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]})`,
      );
    }
    const { rows } = await client.query(
      "select name, generic_plans, custom_plans from pg_prepared_statements",
    );
    console.log(
      rows.map((r) => `${r.name}: ${r.generic_plans} generic, ${r.custom_plans} custom`).join("\n"),
    );
    if (process.env.EXPLAIN) {
      const s = statements[process.env.EXPLAIN];
      await client.query(`prepare explained as ${s.text}`);
      const args = `'${hash}', '${s.ids[0]}'`;
      for (let i = 0; i < 10; i++) await client.query(`execute explained(${args})`);
      const plan = await client.query(`explain (analyze, buffers, verbose) execute explained(${args})`);
      console.log(plan.rows.map((r) => r["QUERY PLAN"]).join("\n"));
    }
  } finally {
    await client.end();
  }
} catch (error) {
  if (!(error instanceof Done)) throw error;
} finally {
  await close();
}
