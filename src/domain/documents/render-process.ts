import type { ChildProcess } from "node:child_process";
import { EventEmitter, once } from "node:events";
import { readdirSync } from "node:fs";
import { setPriority } from "node:os";
import { startProcess } from "../../thread-entry.ts";
import type { RenderResponse } from "./render-worker.ts";

/**
 * What the render pool needs of a renderer: a worker thread has it, and so has a `RenderProcess`.
 * Events: "online" once it can take renders, "message" with each answer, "error", and "exit".
 */
export interface Renderer {
  postMessage(message: unknown): void;
  on(event: "message", listener: (message: RenderResponse) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "exit", listener: (code: number | string | null) => void): unknown;
  once(event: "online", listener: () => void): unknown;
  removeAllListeners(event: "exit"): unknown;
  unref(): void;
  terminate(): Promise<unknown>;
  /**
   * Sets every thread of the renderer to `niceness` (a render's floor, render-pool.ts); false when the
   * host did not permit it. A worker thread (tests) has none.
   */
  renice?(niceness: number): boolean;
}

/**
 * Niceness of a PDF renderer: a render is seconds of CPU, and on a machine with few cores it would
 * take them from the event loop that answers every store (issue 18 item 2). Linux keeps a niceness
 * per thread, and a thread takes its creator's when it starts: the process sets every thread it has
 * (V8's background threads start before any code runs), and those started later take it from the
 * main thread. Elsewhere pid 0 is the whole process, which is the renderer's alone. The service sets
 * the new process's main thread at once too: it would otherwise start (load Node and pdfkit) at the
 * niceness of the API's event loop, raised where permitted (src/loop-priority.ts).
 */
export const RENDER_NICENESS = 10;

/**
 * The niceness a render is raised to once it has waited RENDER_FLOOR_MS (render-pool.ts): the
 * normal priority, so on a host kept busy a merchant's PDF competes on equal terms with the rest
 * (still behind the API's event loop where that is raised). Raising back needs the same permission as
 * raising the loop (root or CAP_SYS_NICE); without it the render keeps RENDER_NICENESS.
 */
export const RAISED_NICENESS = 0;

/**
 * Sets every thread of process `pid` to `niceness`: on Linux each thread has its own (a thread
 * started later takes its creator's); elsewhere the process as a whole. False when any thread could
 * not be set (not permitted, or the process ended).
 */
export function setProcessNiceness(pid: number, niceness: number): boolean {
  let threads: number[];
  try {
    threads = process.platform === "linux" ? readdirSync(`/proc/${pid}/task`).map(Number) : [pid];
  } catch {
    return false; // the process ended
  }
  let all = true;
  for (const tid of threads) {
    try {
      setPriority(tid, niceness);
    } catch {
      all = false; // not permitted (a sandbox, an unprivileged user raising), or the thread ended
    }
  }
  return all;
}

/** The message a render process sends once it listens (render-worker.ts). */
export const ONLINE = "online";

/**
 * A PDF renderer in a child process (render-worker.ts run as a process). A process rather than a
 * thread of the API's: V8's background threads (its collector helpers and compilers) serve every
 * isolate of a process at the process's priority, so a thread's niceness did not reach half of a
 * render's CPU, which then took cores from the API's event loop (docs/history/reliability-journal.md 5b,
 * thirteenth session). A process's threads are all niced, and a render that runs out of memory or crashes
 * ends that process, not the service.
 */
export class RenderProcess extends EventEmitter implements Renderer {
  private exited = false;
  /** Renders sent and not yet answered: the channel keeps the service alive only while there are some. */
  private awaited = 0;

  constructor(private readonly child: ChildProcess) {
    super();
    child.on("message", (message: unknown) => {
      if (message === ONLINE) return void this.emit("online");
      if (--this.awaited === 0) this.keepAlive(false);
      this.emit("message", message);
    });
    child.on("error", (error) => this.emit("error", error));
    child.on("exit", (code, signal) => {
      this.exited = true;
      this.emit("exit", code ?? signal);
    });
  }

  /** Sends a render; a value V8 cannot copy throws here, as a thread's postMessage does. */
  postMessage(message: unknown): void {
    this.child.send(message as object, (error) => {
      if (error) this.emit("error", error);
    });
    if (this.awaited++ === 0) this.keepAlive(true);
  }

  /** Neither the process nor its channel keeps the service alive by itself, but for an awaited render. */
  unref(): void {
    this.keepAlive(false);
  }

  /** Whether the process and its channel keep the event loop alive (its answer or its exit awaited). */
  private keepAlive(on: boolean): void {
    if (on) {
      this.child.ref();
      this.child.channel?.ref();
    } else {
      this.child.unref();
      this.child.channel?.unref();
    }
  }

  async terminate(): Promise<void> {
    if (this.exited) return;
    const exit = once(this.child, "exit");
    this.keepAlive(true); // whoever awaits the end waits for it
    this.child.kill("SIGKILL");
    await exit;
  }

  /** Sets every thread of the process to `niceness` (render-pool.ts: a render's floor). */
  renice(niceness: number): boolean {
    const pid = this.child.pid;
    return pid !== undefined && !this.exited && setProcessNiceness(pid, niceness);
  }

  /** The process id (tests read its threads' niceness). */
  get pid(): number | undefined {
    return this.child.pid;
  }
}

/** A render process (thread-entry.ts: the bundle, the test run's compiled entry, or tsx). */
export function startRenderProcess(): RenderProcess {
  const child = startProcess(import.meta.url, "render-worker", { STOCKROOM_RENDER_PROCESS: "1" });
  if (child.pid !== undefined)
    try {
      setPriority(child.pid, RENDER_NICENESS);
    } catch {
      // Not permitted, or the process already ended: it lowers its threads itself (render-worker.ts).
    }
  return new RenderProcess(child);
}
