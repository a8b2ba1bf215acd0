import { setPriority } from "node:os";

/**
 * The niceness of the thread that runs the API's event loop, where the host permits it (root or
 * CAP_SYS_NICE). Every store's requests wait for that one thread, and on a machine with few cores
 * it waited for a core behind the threads doing one busy key's work (the embedded database's
 * thread, V8's background thread, the PDF renderers): A's slowest requests in the noisy-neighbour
 * test were its loop runnable and off its core (docs/history/reliability-journal.md 5b, fourteenth session).
 * A higher weight makes the scheduler pick the loop first once it is runnable; the loop is one thread,
 * so it can take at most one core from the rest.
 */
export const LOOP_NICENESS = -10;

/**
 * Raises the calling thread (the main one) to LOOP_NICENESS. Linux keeps a niceness per thread and
 * setpriority of pid 0 is the calling thread; so call it once the threads that must stay at normal
 * priority are started (the embedded database's, V8's): a thread takes its creator's niceness when
 * it starts. The PDF renderers set their own. Elsewhere pid 0 is the whole process, every thread of
 * it: left alone there. Not permitted (an unprivileged user): the loop keeps the normal priority,
 * said once through `log`. `set` is the system call (tests give one that refuses).
 */
export function raiseLoopPriority(
  log: (message: string) => void,
  set: (priority: number) => void = setPriority,
): boolean {
  if (process.platform !== "linux") return false;
  try {
    set(LOOP_NICENESS);
    return true;
  } catch (error) {
    // Node's SystemError: `info.code` is the system's (EACCES for an unprivileged user).
    const { code, info } = error as { code?: string; info?: { code?: string } };
    const reason = info?.code ?? code ?? String(error);
    log(
      `event loop left at normal priority (niceness ${LOOP_NICENESS} not permitted: ${reason}); ` +
        "with CAP_SYS_NICE or as root, other stores' requests wait less behind one busy key's work",
    );
    return false;
  }
}
