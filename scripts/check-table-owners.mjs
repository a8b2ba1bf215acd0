#!/usr/bin/env node
// Each table is written by its owning module alone (docs/developing.md, "Module map"); only src/jobs/
// reads or writes the jobs table. Run by `npm run lint`. It looks for Kysely writers
// (insertInto/updateTable/deleteFrom/mergeInto, and selectFrom or a join for jobs) and raw SQL writes
// (and reads of jobs) in sql templates, so a crossing is refused when it is written rather than found
// in a review.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

// The tree to check: the repository, or the one given (the checker's own test runs it on a copy).
const root = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, ".."));

/** table -> the source paths (prefixes) allowed to write it. */
const OWNERS = {
  stores: ["src/domain/stores/"],
  api_keys: ["src/domain/stores/"],
  // A key-value table of the process's own settings: the runtime keeps the cursor-signing secret, and
  // the secrets start-up pass deletes the legacy in-database sealing key it has re-sealed away from.
  service_settings: ["src/runtime.ts", "src/secrets/"],
  request_log: ["src/http/plugins/request-log.ts"],
  // sealed-text.ts re-seals the stored responses for the secrets start-up pass (key rotation).
  idempotency_keys: ["src/http/plugins/idempotency.ts", "src/http/plugins/sealed-text.ts"],
  events: ["src/events/"],
  jobs: ["src/jobs/"],
  tax_rates: ["src/domain/rates/"],
  exchange_rates: ["src/domain/rates/"],
  locations: ["src/domain/catalog/"],
  products: ["src/domain/catalog/"],
  variants: ["src/domain/catalog/"],
  // The mirror's watermark is the sync's bookkeeping (how far it has pulled the platform's change
  // feed), not catalog data: the sync (platform/catalog-sync.ts) reads, advances and records errors on
  // it in the batch's transaction, and hands the catalog and stock modules only the changes.
  mirror_sync_states: ["src/platform/catalog-sync.ts"],
  alert_settings: ["src/domain/stock/"],
  alert_item_rules: ["src/domain/stock/"],
  inventory_levels: ["src/domain/stock/"],
  stock_movements: ["src/domain/stock/"],
  push_batch_movements: ["src/domain/stock/"],
  platform_sync_states: ["src/domain/stock/"],
  platform_push_generations: ["src/domain/stock/"],
  suppliers: ["src/domain/suppliers/"],
  supplier_catalog_items: ["src/domain/suppliers/"],
  purchase_orders: ["src/domain/purchase-orders/"],
  purchase_order_lines: ["src/domain/purchase-orders/"],
  purchase_order_charges: ["src/domain/purchase-orders/"],
  purchase_order_history: ["src/domain/purchase-orders/"],
  purchase_order_counters: ["src/domain/purchase-orders/"],
  receipts: ["src/domain/receipts/"],
  receipt_lines: ["src/domain/receipts/"],
  payments: ["src/domain/payments/"],
  stock_adjustments: ["src/domain/stock-adjustments/"],
  stock_adjustment_lines: ["src/domain/stock-adjustments/"],
  webhooks: ["src/domain/webhooks/"],
  webhook_deliveries: ["src/domain/webhooks/"],
  webhook_lane_items: ["src/domain/webhooks/"],
  staff: ["src/domain/staff/"],
  staff_links: ["src/domain/staff/"],
  // The Shopify platform part keeps its shops (tokens sealed), webhook dedupe and OAuth states.
  shopify_shops: ["src/platform/shopify/"],
  shopify_webhook_events: ["src/platform/shopify/"],
  shopify_oauth_states: ["src/platform/shopify/"],
  // How each Shopify store's last reconciliation went: the inbound side (webhooks, reconciliation).
  shopify_reconciliations: ["src/platform/shopify/inbound/"],
};
// The simulated platform's own tables (sim_*) belong to it.
const PREFIX_OWNERS = [{ prefix: "sim_", owners: ["src/platform/simulated/"] }];
/** Retention deletes expired rows of several modules' tables on their behalf, by age only. */
const RETENTION = "src/modules/retention.ts";
function ownersOf(table) {
  if (OWNERS[table]) return OWNERS[table];
  const byPrefix = PREFIX_OWNERS.find((p) => table.startsWith(p.prefix));
  return byPrefix ? byPrefix.owners : null;
}

function sourceFiles(dir) {
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    if (statSync(path.join(root, rel)).isDirectory()) return sourceFiles(rel);
    return name.endsWith(".ts") ? [rel] : [];
  });
}

const WRITERS =
  /\b(insertInto|updateTable|deleteFrom|mergeInto|replaceInto)\(\s*"([a-z_]+)(?:\s+as\s+\w+)?"/g;
const JOB_READS = /\b(selectFrom|innerJoin|leftJoin|rightJoin|fullJoin)\(\s*"jobs(?:\s+as\s+\w+)?"/g;
const RAW_JOB_READS = /\b(?:from|join)\s+jobs\b/gi;
const RAW_WRITES = /\b(?:insert\s+into|update|delete\s+from)\s+([a-z_]+)\b/gi;

const problems = [];
// Every table the schema declares (src/db/tables/*.ts: `name: SomethingTable;`) needs an owner here,
// so a new table cannot escape the check by being left out of the map.
const tablesDir = path.join(root, "src/db/tables");
if (existsSync(tablesDir)) {
  for (const name of readdirSync(tablesDir)) {
    const text = readFileSync(path.join(tablesDir, name), "utf8");
    for (const m of text.matchAll(/^\s+([a-z_]+): [A-Z]\w*Table;/gm)) {
      if (!ownersOf(m[1])) problems.push(`src/db/tables/${name}: table "${m[1]}" has no owner in OWNERS`);
    }
  }
}
for (const file of sourceFiles("src")) {
  const text = readFileSync(path.join(root, file), "utf8");
  const lineOf = (index) => text.slice(0, index).split("\n").length;
  const check = (table, index, what) => {
    const owners = ownersOf(table);
    if (!owners) return;
    if (owners.some((o) => file === o || file.startsWith(o))) return;
    if (file === RETENTION && what === "deleteFrom") return;
    problems.push(`${file}:${lineOf(index)} ${what} "${table}": owned by ${owners.join(", ")}`);
  };
  for (const m of text.matchAll(WRITERS)) check(m[2], m.index, m[1]);
  for (const m of text.matchAll(JOB_READS)) check("jobs", m.index, m[1]);
  // Raw SQL only counts inside sql`…` templates: the word "update" in prose is not a write.
  for (const tpl of text.matchAll(/sql(?:<[^`]*?>)?`([^`]*)`/g)) {
    for (const m of tpl[1].matchAll(RAW_WRITES)) {
      if (ownersOf(m[1].toLowerCase())) check(m[1].toLowerCase(), tpl.index, "raw SQL write to");
    }
    // A raw read of jobs ("from jobs", "join jobs"), unless the statement already counted as a write.
    const writesJobs = [...tpl[1].matchAll(RAW_WRITES)].some((m) => m[1].toLowerCase() === "jobs");
    if (!writesJobs && RAW_JOB_READS.test(tpl[1])) check("jobs", tpl.index, "raw SQL read of");
    RAW_JOB_READS.lastIndex = 0;
  }
}

if (problems.length) {
  console.error(
    `Table ownership: ${problems.length} write(s) outside the owning module or unowned table(s):`,
  );
  for (const p of problems) console.error(`  ${p}`);
  console.error("Call the owner's public function instead (docs/developing.md, 'Module map').");
  process.exit(1);
}
console.log("Table ownership: every write is in its owning module.");
