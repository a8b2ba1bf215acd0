import v8 from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * What an idle service keeps resident after start-up (issue 22 item 3; figures in
 * docs/history/performance-journal.md, "Idle memory after start-up").
 *
 * Loading the packages, migrating and compiling every route's schemas keep almost everything they
 * allocate, so V8 reads a high survival rate and doubles the young generation up to its ceiling (two
 * 16 MB semi-spaces) within the first second; it never gives that back while the process is idle
 * (it shrinks it only at a full collection after five seconds of low allocation, which an idle
 * service never runs). Start-up also leaves ~15 MB of garbage in the old generation that no
 * collection comes for until traffic does. Together about 40 MB of an idle process's ~150 MB.
 *
 * So the young generation is held at its initial size while the service starts (V8 reads the growth
 * factor each time it grows the space, so this needs no command-line flag and also holds under
 * `node dist/server.mjs`), then growth is allowed again and one full collection clears start-up's
 * garbage. Under load the young generation grows back as it would have (the ceiling is unchanged),
 * so throughput is not traded for the idle figure, as a lower `--max-semi-space-size` would.
 */

/** V8's default factor: the semi-spaces double when enough of a scavenge survives. */
const DEFAULT_GROWTH_FACTOR = 2;

const HOLD = "--semi-space-growth-factor=1";

/** Shared by every copy of this module (the entry's bundle and the service's each carry one). */
const HOLDING = Symbol.for("stockroom.start-memory.holding");
const state = globalThis as { [HOLDING]?: boolean };

/** Call first, before the service's modules load (src/start.ts). */
export function holdYoungGenerationDuringStart(): void {
  state[HOLDING] = true;
  v8.setFlagsFromString(HOLD);
}

/**
 * A worker thread starting sets V8's flags back to the process's own (measured on Node 20: the
 * embedded database's thread, started during start-up, let the young generation grow to its ceiling
 * again), so the hold is set again once a thread is online while start-up lasts.
 */
export function keepHoldAfterThreadStart(): void {
  if (state[HOLDING]) v8.setFlagsFromString(HOLD);
}

/**
 * Call once the service listens and has done its start-up work: lets the young generation grow
 * again and collects start-up's garbage (tens of milliseconds, once).
 */
export function settleMemoryAfterStart(): void {
  state[HOLDING] = false;
  v8.setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
  fullCollection();
}

/**
 * How far the old generation may grow past what its last full collection kept, before V8 starts the
 * next: 200 %, a limit of three times the live heap. Left to itself V8 picks the factor between 1.1
 * and 4 from how fast it collects against how fast the program allocates; under a heavy client's
 * bursts of large answers it settled on about 1.5 for this service's small live heap (~43 MB), and
 * then ran a full collection every 0.3 to 1.5 s, each holding every other store's requests for 3 to
 * 14 ms (issue 18 item 2: docs/history/reliability-journal.md 5b, "the full-collection regime"). The cost is
 * memory under load only: an idle service allocates nothing, so its resident size does not change.
 */
const OLD_GENERATION_GROWING_PERCENT = 200;

/**
 * Sets the old generation's growth (above) for this process. V8 reads it whenever it sets the next
 * limit, so setting it while the process runs takes effect, and a thread started later keeps it
 * (both measured: docs/history/reliability-journal.md 5b, twelfth session, lead).
 */
export function keepOldGenerationHeadroom(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWING_PERCENT}`);
}

/**
 * A full garbage collection. `--expose-gc` only adds `gc` to contexts made after it is set, so a new
 * context is made for it; the flag is then set back, so no later context gets it.
 */
function fullCollection(): void {
  v8.setFlagsFromString("--expose-gc");
  try {
    const gc = runInNewContext("gc") as (() => void) | undefined;
    gc?.();
  } finally {
    v8.setFlagsFromString("--no-expose-gc");
  }
}
