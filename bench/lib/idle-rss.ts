import type { ChildServer } from "./process.ts";
import type { DbRun } from "./types.ts";

/**
 * The idle service's resident memory (issue 2, issue 22 item 3). It moves while the service idles: the
 * workers poll and allocate, a collection hands some back, the embedded database's maintenance runs.
 * One sample 5 s after start read 302 MB in one run and 323 MB in another of the same code, so the
 * figure is the highest of ten samples a second apart from 5 s to 14 s after the health check
 * answered (quick runs: three, from 1 s); the lowest and the median are printed beside it.
 */
const FULL = { afterMs: 5_000, count: 10, everyMs: 1_000 };
const QUICK = { afterMs: 1_000, count: 3, everyMs: 250 };

const MB = 1024 * 1024;

export async function idleRss(
  service: ChildServer,
  quick: boolean,
): Promise<{ highest: number | null; samples: number[] }> {
  const { afterMs, count, everyMs } = quick ? QUICK : FULL;
  await new Promise((r) => setTimeout(r, afterMs));
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, everyMs));
    const rss = service.rss();
    if (rss !== null) samples.push(Math.round((rss / MB) * 10) / 10);
  }
  return { highest: samples.length === 0 ? null : Math.max(...samples), samples };
}

/** "287 MB (highest of 10 samples 5-14 s after start; lowest 279, median 283)". */
export function describeIdleRss(run: Pick<DbRun, "idleRssMb" | "idleRssSamplesMb">): string {
  if (run.idleRssMb === null) return "—";
  const samples = [...(run.idleRssSamplesMb ?? [])].sort((a, b) => a - b);
  if (samples.length < 2) return `${run.idleRssMb.toFixed(0)} MB`;
  const median = samples[Math.floor((samples.length - 1) / 2)];
  return `${run.idleRssMb.toFixed(0)} MB (highest of ${samples.length} samples; lowest ${samples[0].toFixed(0)}, median ${median.toFixed(0)})`;
}
