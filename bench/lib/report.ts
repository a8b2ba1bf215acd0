import { describeIdleRss } from "./idle-rss.ts";
import type { BenchReport, DbRun, Row, Target } from "./types.ts";

const DB_NAMES = { postgres: "PostgreSQL", pglite: "PGlite" } as const;

function pad(text: string, width: number, right = false): string {
  if (text.length >= width) return text;
  return right ? text.padStart(width) : text.padEnd(width);
}

function num(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || Number.isNaN(value)) return "—";
  return value.toFixed(digits);
}

export function formatValue(value: number | null, unit: string): string {
  if (value === null) return "—";
  if (unit === "bool") return value ? "yes" : "no";
  if (unit === "%") return `${(value * 100).toFixed(0)}%`;
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${unit}`;
}

/** A ratio as a whole percentage; "—" when there is none. */
export function percent(ratio: number | null | undefined): string {
  return ratio === null || ratio === undefined ? "—" : `${(ratio * 100).toFixed(0)}%`;
}

function rowLine(name: string, row: Row): string {
  return [
    pad(name, 34),
    pad(String(row.connections), 5, true),
    pad(num(row.rps), 9, true),
    pad(num(row.p50, 2), 8, true),
    pad(num(row.p97_5, 2), 8, true),
    pad(num(row.p99, 2), 8, true),
    pad(String(row.errors), 7, true),
    pad(row.ratio === null ? "—" : `${(row.ratio * 100).toFixed(0)}%`, 9, true),
    pad(percent(row.writeRatio), 7, true),
    pad(row.peakRssMb === null ? "—" : `${row.peakRssMb.toFixed(0)} MB`, 9, true),
    pad(cpuCell(row), 11, true),
  ].join(" ");
}

/** The service's CPU a request, µs, and its database's after a slash on PostgreSQL. */
function cpuCell(row: Row): string {
  const cpu = row.cpu;
  if (!cpu || cpu.serviceUs === null) return "—";
  return cpu.databaseUs === null ? String(cpu.serviceUs) : `${cpu.serviceUs}/${cpu.databaseUs}`;
}

function targetLine(target: Target): string {
  const verdict = target.met === null ? "printed" : target.met ? "met" : "NOT MET";
  return `  ${pad(`[${verdict}]`, 10)} #${target.issue} ${target.text}: ${formatValue(target.value, target.unit)}`;
}

export function formatRun(run: DbRun): string {
  const out: string[] = [];
  out.push("");
  out.push(`== ${DB_NAMES[run.db]}: ${run.version}`);
  out.push(`   idle RSS of the service: ${describeIdleRss(run)}`);
  if (run.error) out.push(`   RUN FAILED: ${run.error}`);
  out.push("");
  out.push(
    [
      pad("scenario", 34),
      pad("conns", 5, true),
      pad("req/s", 9, true),
      pad("p50 ms", 8, true),
      pad("p97.5", 8, true),
      pad("p99 ms", 8, true),
      pad("errors", 7, true),
      pad("×ceiling", 9, true),
      pad("×write", 7, true),
      pad("peak RSS", 9, true),
      pad("CPU µs/req", 11, true),
    ].join(" "),
  );
  for (const row of run.ceiling) out.push(rowLine(`ceiling (${row.label})`, row));
  for (const row of run.writeCeiling ?? []) out.push(rowLine(`write ceiling (${row.label})`, row));
  for (const scenario of run.scenarios) {
    if (scenario.status !== "ok") {
      out.push(`${pad(scenario.name, 34)} ${scenario.status}: ${scenario.reason ?? ""}`);
      continue;
    }
    for (const row of scenario.rows) out.push(rowLine(`${scenario.name} ${row.label}`.trim(), row));
    const figures = Object.entries(scenario.figures);
    if (figures.length > 0)
      out.push(`${pad("", 2)}${scenario.name}: ${figures.map(([k, v]) => `${k} ${v ?? "—"}`).join(", ")}`);
  }
  for (const row of run.ceilingEnd) out.push(rowLine(`ceiling again at the end (${row.label})`, row));
  if (run.unavailableRetries > 0)
    out.push(
      `   the service answered 503 (database unavailable) ${run.unavailableRetries} time(s); the bench waited for it`,
    );
  if (run.seedRetries > 0)
    out.push(`   ${run.seedRetries} seeding call(s) answered 500 and were retried (see the service log)`);
  const targets = run.scenarios.flatMap((s) => (s.status === "ok" ? s.targets : []));
  if (targets.length > 0) {
    out.push("");
    out.push(`Targets (${DB_NAMES[run.db]}):`);
    for (const t of targets) out.push(targetLine(t));
  }
  const notes = run.scenarios.flatMap((s) => s.notes.map((n) => `  - ${s.name}: ${n}`));
  if (notes.length > 0) {
    out.push("");
    out.push("Notes:");
    out.push(...notes);
  }
  for (const s of run.scenarios) {
    for (const [title, text] of Object.entries(s.text ?? {})) {
      out.push("");
      out.push(`${title} (${DB_NAMES[run.db]}):`);
      out.push(...text.split("\n").map((l) => `  ${l}`));
    }
  }
  return out.join("\n");
}

export function formatHeader(report: BenchReport): string {
  const m = report.machine;
  return [
    `Stockroom benchmark (${report.mode}) ${report.generatedAt}`,
    `machine: ${m.os} ${m.arch}, ${m.cpus} × ${m.cpuModel}, ${m.memoryGb.toFixed(1)} GB; load average at start ${m.loadAverageAtStart.map((l) => l.toFixed(2)).join(" ")}`,
    `node ${report.node}; ${Object.entries(report.settings)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")}`,
  ].join("\n");
}
