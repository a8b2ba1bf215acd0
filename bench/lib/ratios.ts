import type { Row } from "./types.ts";

/**
 * Throughput as a fraction of a ceiling's at the same connection count, measured in the same run.
 * null when there is no ceiling for that count, or it answered nothing (no ratio to report).
 */
export function throughputRatio(rps: number, ceiling: Row | undefined): number | null {
  if (!ceiling || !(ceiling.rps > 0) || !Number.isFinite(rps) || rps < 0) return null;
  return rps / ceiling.rps;
}

/**
 * How much a load elsewhere on the same process raises a request's p99: p99 with it over p99 alone.
 * null when either is missing or the one alone is zero (nothing to compare against).
 */
export function p99Ratio(withLoad: Row, alone: Row): number | null {
  if (!(alone.p99 > 0) || !Number.isFinite(withLoad.p99) || withLoad.p99 < 0) return null;
  return withLoad.p99 / alone.p99;
}
