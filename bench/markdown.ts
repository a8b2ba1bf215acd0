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

const m = report.machine;
const out: string[] = [];
out.push(
  `Run of ${report.generatedAt} (${report.mode}) on ${m.os} ${m.arch}, ${m.cpus} × ${m.cpuModel}, ${m.memoryGb.toFixed(1)} GB; Node ${report.node}; load average ${m.loadAverageAtStart.map((l) => l.toFixed(1)).join(" / ")} at start, ${m.loadAverageAtEnd.map((l) => l.toFixed(1)).join(" / ")} at the end.`,
);
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
