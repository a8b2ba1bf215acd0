import type { CpuPerRequest } from "./cpu-meter.ts";
import type { DbKind } from "./database.ts";

/** One measured load: a line of the table. */
export interface Row {
  label: string;
  connections: number;
  requests: number;
  durationSec: number;
  rps: number;
  p50: number;
  p97_5: number;
  p99: number;
  errors: number;
  /** Throughput as a fraction of the ceiling's at the same connection count (null: not comparable). */
  ratio: number | null;
  /**
   * Writes only (receipts, applies): throughput as a fraction of the write ceiling's at the same
   * connection count (bench/lib/write-ceiling.ts).
   */
  writeRatio?: number | null;
  peakRssMb: number | null;
  /** CPU a request over the measured window (bench/lib/cpu-meter.ts); absent for rows not metered. */
  cpu?: CpuPerRequest;
  /** First failing answers, when there were errors. */
  errorSamples?: string[];
}

/** A target from an issue, printed beside the figure it is about. */
export interface Target {
  issue: number;
  text: string;
  value: number | null;
  unit: string;
  /** null: printed only (no target on this database). */
  met: boolean | null;
}

export interface ScenarioOutput {
  rows: Row[];
  figures: Record<string, number | string | null>;
  targets: Target[];
  notes: string[];
  /** Query plans and other text shown under the table. */
  text?: Record<string, string>;
}

export interface ScenarioResult extends ScenarioOutput {
  name: string;
  title: string;
  issue: number;
  status: "ok" | "skipped" | "failed";
  reason?: string;
  seconds: number;
}

export interface DbRun {
  db: DbKind;
  version: string;
  /** The highest of the idle samples (bench/lib/idle-rss.ts). */
  idleRssMb: number | null;
  /** Every idle sample, MB, in the order taken. */
  idleRssSamplesMb?: number[];
  /** Measured before the scenarios; ratios are to these. */
  ceiling: Row[];
  /** The write ceiling (a 50-line receipt's rows in one transaction), when a write scenario runs. */
  writeCeiling?: Row[];
  /** Measured again after the scenarios (full runs), to show how much the machine drifted. */
  ceilingEnd: Row[];
  /** Seeding calls that answered 500 and were retried. */
  seedRetries: number;
  /** Reads that answered 503 (the service's database briefly unavailable) and were retried. */
  unavailableRetries: number;
  scenarios: ScenarioResult[];
  error?: string;
}

export interface BenchReport {
  generatedAt: string;
  mode: "quick" | "full";
  only: string[] | null;
  machine: {
    os: string;
    arch: string;
    cpus: number;
    cpuModel: string;
    memoryGb: number;
    loadAverageAtStart: number[];
    loadAverageAtEnd: number[];
  };
  node: string;
  settings: Record<string, string>;
  runs: DbRun[];
}
