/**
 * How long the calling thread has been on a core and how long it has waited for one while runnable,
 * from the kernel's per-thread schedstat (Linux; ns since the thread began). A late sample of the
 * noisy-neighbour test either ran other work on the loop (its time on a core grows) or waited for a
 * core taken by other threads or the host (its wait grows): the two call for different fixes, and
 * only the first is the service's own code (docs/history/reliability-journal.md 5b, thirteenth session).
 */
import { openSync, readlinkSync, readSync } from "node:fs";

export interface CoreTimes {
  /** ms on a core. */
  onCore: number;
  /** ms runnable but waiting for a core. */
  waiting: number;
}

/**
 * Reads this thread's times; null where the kernel offers no schedstat (not Linux, or turned off).
 * The file stays open and is read into one buffer: read with `readFileSync(path, "utf8")`, twice per
 * sample of the noisy-neighbour test, each read left ~150 bytes in the old generation until a full
 * collection (Node 20: 40,000 reads grew it by 5.8 MB; these reads by nothing), the probe's own
 * garbage in the very collections the test times (docs/history/reliability-journal.md 5b, eighteenth
 * session).
 */
export function threadCoreTimes(): (() => CoreTimes) | null {
  let fd: number;
  const buffer = Buffer.alloc(256);
  const read = () => buffer.toString("latin1", 0, readSync(fd, buffer, 0, buffer.length, 0));
  try {
    fd = openSync(`/proc/self/task/${readlinkSync("/proc/thread-self").split("/").pop()}/schedstat`, "r");
    read();
  } catch {
    return null;
  }
  return () => {
    const [run, queue] = read().split(" ").map(Number);
    return { onCore: run / 1e6, waiting: queue / 1e6 };
  };
}
