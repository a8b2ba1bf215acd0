import { availableParallelism } from "node:os";
import { AppError } from "../errors.ts";
import type { PurchaseOrderDocument } from "./purchase-order-view.ts";
import { RAISED_NICENESS, RENDER_NICENESS, type Renderer, startRenderProcess } from "./render-process.ts";
import type { DocumentSource, RenderRequest, RenderResponse } from "./render-worker.ts";

/**
 * Renders purchase order PDFs in child processes at a lower priority (render-process.ts), so a big
 * order's seconds of pdfkit layout never hold the event loop that answers everyone else, nor take its
 * cores. "Thread" below is one renderer (a process; tests stand in worker threads).
 *
 * Bounded three ways: a few threads (the cores less one for the event loop, at most 4); per store at
 * most PER_STORE renders queued or running, beyond which a caller that may be refused (the API) gets
 * 429 `rate_limited` with Retry-After; and at most QUEUE_LIMIT renders waiting in all. Waiting renders
 * are taken fairly: a free thread takes the oldest render of the store served longest ago, so one
 * store's queue never stands in front of another store's single PDF. The mail job waits instead of
 * being refused (its worker slots bound it already). Threads start on the first render and stop after
 * IDLE_MS without work: an API process that never renders a PDF never loads pdfkit.
 *
 * A render holds its thread and its store's share until it ends, so every way it can end without an
 * answer ends it here: a document the thread cannot be sent (the render fails at once, the thread
 * stays free) and a thread that answers nothing for RENDER_TIMEOUT_MS (it is stopped, its render
 * fails, a new thread takes the queue). Either would otherwise keep a thread and one of the store's
 * PER_STORE places for good, and after PER_STORE of them the store's every PDF answered 429.
 *
 * A render has a floor: its process runs at RENDER_NICENESS so that PDFs yield to the API, but on a
 * host kept busy that alone made a merchant's PDF wait as long as the load lasted (a clean-clone CI
 * at load 12 timed out a PDF GET at 30 s). A render not finished RENDER_FLOOR_MS after it was asked
 * for has its process raised to RAISED_NICENESS until it ends, and competes on equal terms from then
 * on; the process goes back to RENDER_NICENESS for its next render.
 */

export const PER_STORE = 4;
export const QUEUE_LIMIT = 64;
const RETRY_AFTER_SECONDS = 2;
const IDLE_MS = 30_000;
/** Far beyond the biggest order's render (a 500-line order takes 1 to 3 s on a busy core). */
export const RENDER_TIMEOUT_MS = 120_000;
/**
 * A render's floor: raised to RAISED_NICENESS once this long has passed since it was asked for (its
 * wait in the queue counts). A 500-line order takes 1 to 3 s on a busy core and a usual one a few
 * tens of ms, so a render still running after 5 s is waiting for a core rather than working; and a
 * merchant waits a few seconds for a PDF, not half a minute.
 */
export const RENDER_FLOOR_MS = 5_000;

export interface RenderPoolOptions {
  /** How long a thread may take over one render before it is stopped. */
  timeoutMs?: number;
  /** Starts a renderer (tests stand in threads that misbehave). */
  startThread?: () => Renderer;
  /** After how long a render is raised (RENDER_FLOOR_MS). */
  floorMs?: number;
}

export function defaultThreadCount(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

interface Pending {
  readonly id: number;
  readonly storeId: number;
  readonly request: RenderRequest;
  /** When it was asked for (performance.now): its floor counts from then. */
  readonly askedAt: number;
  resolve(pdf: Buffer): void;
  reject(error: Error): void;
}

interface Thread {
  readonly worker: Renderer;
  job: Pending | null;
  idleTimer: NodeJS.Timeout | null;
  /** Stops the thread when its render takes too long. */
  jobTimer: NodeJS.Timeout | null;
  /** Whether the thread runs code yet: a render's time limit starts then, not while it starts. */
  online: boolean;
  /** Raises the thread's render at its floor. */
  floorTimer: NodeJS.Timeout | null;
  /** Whether the thread's render reached its floor (the thread runs at RAISED_NICENESS). */
  raised: boolean;
}

export class RenderPool {
  private readonly threads: Thread[] = [];
  private readonly queue: Pending[] = [];
  private readonly perStore = new Map<number, number>();
  /** When each store last had a render taken from the queue (a sequence number, not a time). */
  private readonly lastServed = new Map<number, number>();
  private served = 0;
  private nextId = 1;
  private closed = false;

  private readonly timeoutMs: number;
  private readonly floorMs: number;
  private readonly startThread: () => Renderer;

  constructor(
    private readonly size = defaultThreadCount(),
    options: RenderPoolOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? RENDER_TIMEOUT_MS;
    this.floorMs = options.floorMs ?? RENDER_FLOOR_MS;
    this.startThread = options.startThread ?? startRenderProcess;
  }

  /**
   * The PDF of `document` (or of a document whose lines come as text: render-worker.ts), rendered on
   * a thread. `refusable` callers are refused with 429 when their store already has PER_STORE renders
   * here or the queue is full; the others always wait their turn.
   */
  render(
    storeId: number,
    document: PurchaseOrderDocument | DocumentSource,
    receivingCopy: boolean,
    refusable: boolean,
  ): Promise<Buffer> {
    const source: DocumentSource = "document" in document ? document : { document };
    if (this.closed) return Promise.reject(new Error("the service is stopping: PDF rendering is closed"));
    const held = this.perStore.get(storeId) ?? 0;
    if (refusable && (held >= PER_STORE || this.queue.length >= QUEUE_LIMIT)) {
      const why =
        held >= PER_STORE ? `this store already has ${held} PDFs rendering` : "too many PDFs are rendering";
      throw new AppError("rate_limited", `${why}; retry in ${RETRY_AFTER_SECONDS} s.`, undefined, 429, {
        "retry-after": String(RETRY_AFTER_SECONDS),
      });
    }
    this.perStore.set(storeId, held + 1);
    return new Promise<Buffer>((resolve, reject) => {
      this.queue.push({
        id: this.nextId++,
        storeId,
        request: { ...source, receivingCopy },
        askedAt: performance.now(),
        resolve,
        reject,
      });
      this.dispatch();
    });
  }

  /** Renders queued or running for a store (for tests and figures). */
  heldBy(storeId: number): number {
    return this.perStore.get(storeId) ?? 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(new Error("the service is stopping"));
    await Promise.all(this.threads.splice(0).map((t) => this.stop(t)));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const thread = this.threads.find((t) => t.job === null) ?? this.grow();
      if (!thread) return;
      const job = this.takeFairly();
      if (thread.idleTimer) clearTimeout(thread.idleTimer);
      thread.idleTimer = null;
      try {
        thread.worker.postMessage({ id: job.id, ...job.request });
      } catch (error) {
        // Not sent (a value that cannot be copied to a thread): this render fails, the thread stays free.
        this.release(job.storeId);
        job.reject(error instanceof Error ? error : new Error(String(error)));
        if (this.queue.length === 0)
          thread.idleTimer = setTimeout(() => this.retire(thread), IDLE_MS).unref();
        continue;
      }
      thread.job = job;
      if (thread.online) this.startJobTimer(thread);
      this.startFloorTimer(thread, job);
    }
  }

  /**
   * The render's floor: RENDER_FLOOR_MS after it was asked for, its thread is raised (at once when it
   * waited that long in the queue). A thread still starting is raised too (its start at
   * RENDER_NICENESS is the render's wait), and again once online, since a render process lowers its
   * threads itself as it starts (render-worker.ts).
   */
  private startFloorTimer(thread: Thread, job: Pending): void {
    const raise = () => {
      thread.floorTimer = null;
      if (thread.job === job) thread.raised = thread.worker.renice?.(RAISED_NICENESS) ?? false;
    };
    thread.floorTimer = setTimeout(
      raise,
      Math.max(0, job.askedAt + this.floorMs - performance.now()),
    ).unref();
  }

  /** A raised thread back to RENDER_NICENESS for its next render. */
  private clearFloor(thread: Thread): void {
    if (thread.floorTimer) clearTimeout(thread.floorTimer);
    thread.floorTimer = null;
    if (thread.raised) thread.worker.renice?.(RENDER_NICENESS);
    thread.raised = false;
  }

  /**
   * The render's time limit. A thread's start (a new one after a stopped thread, or the first on a
   * loaded machine) is not the render's time: the limit is for a thread that runs and answers nothing.
   */
  private startJobTimer(thread: Thread): void {
    thread.jobTimer = setTimeout(
      () => this.failed(thread, new Error(`the PDF thread answered nothing in ${this.timeoutMs} ms`)),
      this.timeoutMs,
    ).unref();
  }

  /** The oldest waiting render of the store whose last render was taken longest ago. */
  private takeFairly(): Pending {
    let best = 0;
    for (let i = 1; i < this.queue.length; i++) {
      const a = this.lastServed.get(this.queue[i].storeId) ?? -1;
      const b = this.lastServed.get(this.queue[best].storeId) ?? -1;
      if (a < b) best = i;
    }
    const [job] = this.queue.splice(best, 1);
    this.lastServed.set(job.storeId, this.served++);
    return job;
  }

  private grow(): Thread | null {
    if (this.threads.length >= this.size) return null;
    const thread: Thread = {
      worker: this.startThread(),
      job: null,
      idleTimer: null,
      jobTimer: null,
      online: false,
      floorTimer: null,
      raised: false,
    };
    // Never keeps the process alive by itself; a running service has its listener for that.
    thread.worker.unref();
    thread.worker.once("online", () => {
      thread.online = true;
      if (thread.job && !thread.jobTimer) this.startJobTimer(thread);
      // Raised while it started: it has just lowered its threads itself.
      if (thread.raised) thread.raised = thread.worker.renice?.(RAISED_NICENESS) ?? false;
    });
    thread.worker.on("message", (message: RenderResponse) => this.finished(thread, message));
    thread.worker.on("error", (error) => this.failed(thread, error));
    thread.worker.on("exit", (code) => this.failed(thread, new Error(`the PDF thread exited (${code})`)));
    this.threads.push(thread);
    return thread;
  }

  private finished(thread: Thread, message: RenderResponse): void {
    const job = thread.job;
    if (!job || job.id !== message.id) return;
    thread.job = null;
    this.clearJobTimer(thread);
    this.clearFloor(thread);
    this.release(job.storeId);
    if ("error" in message) job.reject(new Error(`rendering the PDF failed: ${message.error}`));
    else job.resolve(Buffer.from(message.pdf.buffer, message.pdf.byteOffset, message.pdf.byteLength));
    if (this.queue.length > 0) this.dispatch();
    else thread.idleTimer = setTimeout(() => this.retire(thread), IDLE_MS).unref();
  }

  /** A thread that died takes its render with it (a 500 for that request); the next render starts a new one. */
  private failed(thread: Thread, error: Error): void {
    const index = this.threads.indexOf(thread);
    if (index < 0) return;
    this.threads.splice(index, 1);
    if (thread.idleTimer) clearTimeout(thread.idleTimer);
    this.clearJobTimer(thread);
    if (thread.floorTimer) clearTimeout(thread.floorTimer);
    const job = thread.job;
    thread.job = null;
    if (job) {
      this.release(job.storeId);
      job.reject(error);
    }
    void thread.worker.terminate();
    if (!this.closed) this.dispatch();
  }

  private retire(thread: Thread): void {
    const index = this.threads.indexOf(thread);
    if (index < 0 || thread.job) return;
    this.threads.splice(index, 1);
    void this.stop(thread);
  }

  private clearJobTimer(thread: Thread): void {
    if (thread.jobTimer) clearTimeout(thread.jobTimer);
    thread.jobTimer = null;
  }

  private async stop(thread: Thread): Promise<void> {
    if (thread.idleTimer) clearTimeout(thread.idleTimer);
    this.clearJobTimer(thread);
    if (thread.floorTimer) clearTimeout(thread.floorTimer);
    thread.worker.removeAllListeners("exit");
    thread.job?.reject(new Error("the service is stopping"));
    await thread.worker.terminate();
  }

  private release(storeId: number): void {
    const held = (this.perStore.get(storeId) ?? 1) - 1;
    if (held > 0) this.perStore.set(storeId, held);
    else this.perStore.delete(storeId);
  }
}
