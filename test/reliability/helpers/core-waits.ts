/**
 * How long the calling thread has been on a core and how long it has waited for one while runnable,
 * from the kernel's per-thread schedstat (Linux; ns since the thread began). A late sample of the
 * noisy-neighbour test either ran other work on the loop (its time on a core grows) or waited for a
 * core taken by other threads or the host (its wait grows): the two call for different fixes, and
 * only the first is the service's own code (docs/history/reliability-journal.md 5b, thirteenth session).
 */
import { readFileSync, readlinkSync } from "node:fs";

export interface CoreTimes {
  /** ms on a core. */
  onCore: number;
  /** ms runnable but waiting for a core. */
  waiting: number;
}

/** Reads this thread's times; null where the kernel offers no schedstat (not Linux, or turned off). */
export function threadCoreTimes(): (() => CoreTimes) | null {
  let path: string;
  try {
    path = `/proc/self/task/${readlinkSync("/proc/thread-self").split("/").pop()}/schedstat`;
    readFileSync(path, "utf8");
  } catch {
    return null;
  }
  return () => {
    const [run, queue] = readFileSync(path, "utf8").split(" ").map(Number);
    return { onCore: run / 1e6, waiting: queue / 1e6 };
  };
}
