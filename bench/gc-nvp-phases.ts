/**
 * `node --import tsx bench/gc-nvp-phases.ts < out.txt`: the main thread's collections per phase kind
 * from the stdout of `node --trace-gc-nvp --import tsx bench/noisy-timeline.ts` or of
 * bench/loop-stretches.ts (V8's line per collection, with their `@mark` lines on the same clock). Per scavenge: its pause, the bytes it copied
 * within the young generation (`new_space_survived`) and promoted, its parallel phase on the main
 * thread and on the helper; per full collection its pause and the old generation's growth before it.
 * Bytes and counts, which the machine's load does not change; pauses beside them.
 * The main isolate is the one of the first line (it starts first; the clients' threads and other
 * isolates print theirs too).
 */
import { readFileSync } from "node:fs";

const text = readFileSync(0, "utf8");
const line = /^\[(\d+):(0x[0-9a-f]+)\]\s+(\d+) ms: (pause=.*)$/;
const marks: Array<{ at: number; label: string }> = [];
const gcs: Array<{ isolate: string; at: number; f: Record<string, string> }> = [];
for (const l of text.split("\n")) {
  const mark = /^@mark (\d+) ms: (.*)$/.exec(l);
  if (mark) marks.push({ at: Number(mark[1]), label: mark[2] });
  const m = line.exec(l);
  if (m) {
    const f: Record<string, string> = {};
    for (const kv of m[4].split(" ")) {
      const i = kv.indexOf("=");
      if (i > 0) f[kv.slice(0, i)] = kv.slice(i + 1);
    }
    gcs.push({ isolate: m[2], at: Number(m[3]), f });
  }
}
const perIsolate = new Map<string, number>();
for (const g of gcs) perIsolate.set(g.isolate, (perIsolate.get(g.isolate) ?? 0) + 1);
const main = gcs[0]?.isolate;
const phases: Array<{ kind: string; from: number; to: number }> = [];
// A phase is a mark "<name> start" and the next "<name> end"; its kind, the name less a round number.
for (let i = 0; i + 1 < marks.length; i++) {
  const start = /^(.*) start$/.exec(marks[i].label);
  if (start && marks[i + 1].label === `${start[1]} end`)
    phases.push({ kind: start[1].replace(/ \d+$/, ""), from: marks[i].at, to: marks[i + 1].at });
}
const kb = (x: string | undefined) => Math.round(Number(x ?? 0) / 1024);
const out: Record<string, unknown> = { isolates: Object.fromEntries(perIsolate), main };
for (const kind of new Set(phases.map((p) => p.kind))) {
  const rows = phases
    .filter((p) => p.kind === kind)
    .map((p) => {
      const within = gcs.filter((g) => g.isolate === main && g.at >= p.from && g.at <= p.to);
      const s = within.filter((g) => g.f.gc === "s");
      const full = within.filter((g) => g.f.gc !== "s");
      return {
        scavenges: s.map((g) => ({
          pause: Number(g.f.pause),
          copied_kb: kb(g.f.new_space_survived),
          promoted_kb: kb(g.f.promoted),
          parallel: Number(g.f["scavenge.parallel"]),
          helper: Number(g.f["background.scavenge.parallel"]),
          safepoint: Number(g.f.time_to_safepoint),
        })),
        full: full.map((g) => ({
          gc: g.f.gc,
          pause: Number(g.f.pause),
          before_mb: Number((Number(g.f.total_size_before) / 1e6).toFixed(1)),
          after_mb: Number((Number(g.f.total_size_after) / 1e6).toFixed(1)),
        })),
      };
    });
  const all = rows.flatMap((r) => r.scavenges);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const allocated = sum(
    gcs
      .filter((g) => g.isolate === main && rows.length > 0)
      .filter((g) => phases.some((p) => p.kind === kind && g.at >= p.from && g.at <= p.to))
      .map((g) => Number(g.f.allocated ?? 0) / 1024),
  );
  out[kind] = {
    phases: rows.length,
    ms: sum(phases.filter((p) => p.kind === kind).map((p) => p.to - p.from)),
    allocated_at_scavenges_kb: Math.round(allocated),
    scavenges: all.length,
    copied_kb: sum(all.map((x) => x.copied_kb)),
    promoted_kb: sum(all.map((x) => x.promoted_kb)),
    longest: [...all].sort((a, b) => b.pause - a.pause).slice(0, 5),
    full: rows.flatMap((r) => r.full),
  };
}
console.log(JSON.stringify(out, null, 1));
