/**
 * `node --import tsx bench/markdown.ts [bench/results/latest.json]`: a run's figures as Markdown tables,
 * for docs/performance.md.
 */
import { readFileSync } from "node:fs";
import { describeIdleRss } from "./lib/idle-rss.ts";
import { formatValue, percent } from "./lib/report.ts";
import type { BenchReport, Row } from "./lib/types.ts";

const file = process.argv[2] ?? new URL("./results/latest.json", import.meta.url).pathname;
const report = JSON.parse(readFileSync(file, "utf8")) as BenchReport;
const names = { postgres: "PostgreSQL", pglite: "PGlite" } as const;
const n = (v: number, d = 1) => v.toFixed(d);

function row(name: string, r: Row): string {
  return `| ${name} | ${r.connections} | ${n(r.rps)} | ${n(r.p50, 2)} | ${n(r.p97_5, 2)} | ${n(r.p99, 2)} | ${r.errors} | ${percent(
    r.ratio,
  )} | ${percent(r.writeRatio)} | ${r.peakRssMb === null ? "—" : n(r.peakRssMb, 0)} |`;
}

/** A row's share of its ceiling: writes against the write ceiling (×write), the rest the read one. */
function share(r: Row | undefined): string {
  if (!r) return "—";
  if (r.writeRatio !== undefined && r.writeRatio !== null) return `${percent(r.writeRatio)} ×write`;
  return percent(r.ratio);
}

/**
 * One table of every scenario's rows on both databases side by side (issue 22 item 5): req/s, the
 * share of the ceiling measured in the same run at the same connection count, and p99.
 */
function summary(): string[] {
  const keys: string[] = [];
  const byDb = new Map<string, Map<string, Row>>();
  for (const run of report.runs) {
    const rows = new Map<string, Row>();
    const add = (key: string, r: Row) => {
      rows.set(key, r);
      if (!keys.includes(key)) keys.push(key);
    };
    for (const r of run.ceiling) add(`ceiling ${r.label}`, r);
    for (const r of run.writeCeiling ?? []) add(`write ceiling ${r.label}`, r);
    for (const sc of run.scenarios) for (const r of sc.rows) add(`${sc.name} ${r.label}`, r);
    byDb.set(run.db, rows);
  }
  const dbs = report.runs.map((run) => run.db);
  const out = [
    `| scenario | ${dbs.map((db) => `${names[db]} req/s | share | p99 ms`).join(" | ")} |`,
    `|---|${dbs.map(() => "---:|---:|---:").join("|")}|`,
  ];
  for (const key of keys) {
    const cells = dbs.map((db) => {
      const r = byDb.get(db)?.get(key);
      return r ? `${n(r.rps)} | ${key.includes("ceiling") ? "" : share(r)} | ${n(r.p99, 2)}` : "— | — | —";
    });
    out.push(`| ${key} | ${cells.join(" | ")} |`);
  }
  return out;
}

const m = report.machine;
const out: string[] = [];
out.push(
  `Run of ${report.generatedAt} (${report.mode}) on ${m.os} ${m.arch}, ${m.cpus} × ${m.cpuModel}, ${m.memoryGb.toFixed(1)} GB; Node ${report.node}; load average ${m.loadAverageAtStart.map((l) => l.toFixed(1)).join(" / ")} at start, ${m.loadAverageAtEnd.map((l) => l.toFixed(1)).join(" / ")} at the end.`,
);
out.push("", "Every scenario against its ceiling, both databases:", "", ...summary());
for (const run of report.runs) {
  out.push(
    "",
    `### ${names[run.db]}`,
    "",
    `${run.version}; idle RSS of the service ${describeIdleRss(run)}.`,
    "",
  );
  out.push(
    "| scenario | conns | req/s | p50 ms | p97.5 ms | p99 ms | errors | ×ceiling | ×write ceiling | peak RSS MB |",
  );
  out.push("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of run.ceiling) out.push(row(`ceiling (${r.label})`, r));
  for (const r of run.writeCeiling ?? []) out.push(row(`write ceiling (${r.label})`, r));
  for (const s of run.scenarios) {
    if (s.status !== "ok") {
      out.push(`| ${s.name}: ${s.status} (${s.reason ?? ""}) | | | | | | | | | |`);
      continue;
    }
    for (const r of s.rows) out.push(row(`${s.name} ${r.label}`, r));
  }
  for (const r of run.ceilingEnd) out.push(row(`ceiling at the end (${r.label})`, r));
  const figures = run.scenarios.filter((s) => Object.keys(s.figures).length > 0);
  if (figures.length > 0) {
    out.push("");
    for (const s of figures)
      out.push(
        `- ${s.name}: ${Object.entries(s.figures)
          .map(([k, v]) => `${k} ${v ?? "—"}`)
          .join(", ")}`,
      );
  }
  out.push("", "| issue | target | measured | |", "|---|---|---:|---|");
  for (const s of run.scenarios) {
    for (const t of s.targets)
      out.push(
        `| #${t.issue} | ${t.text} | ${formatValue(t.value, t.unit)} | ${t.met === null ? "printed" : t.met ? "met" : "**not met**"} |`,
      );
  }
}
console.log(out.join("\n"));
