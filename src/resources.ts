/**
 * What a running service keeps open beside the database (an HTTP connection pool, a mail transport):
 * built once, on first use, whichever of the API or the worker asks first (their contexts differ only
 * in the database handle and share this object), and closed once when the runtime closes.
 */
export class ProcessResources {
  private readonly held = new Map<object, { value: unknown; close(): Promise<void> | void }>();
  private closed = false;

  /** The one value for `key` in this process, made on first use; `close` releases it at shutdown. */
  get<T>(key: object, make: () => T, close: (value: T) => Promise<void> | void): T {
    const entry = this.held.get(key);
    if (entry) return entry.value as T;
    if (this.closed) throw new Error("the service is stopping: its resources are closed");
    const value = make();
    this.held.set(key, { value, close: () => close(value) });
    return value;
  }

  /** Closes everything made, newest first; every close runs even when one fails. */
  async close(): Promise<void> {
    this.closed = true;
    const entries = [...this.held.values()].reverse();
    this.held.clear();
    const results = await Promise.allSettled(entries.map(async (e) => e.close()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  }
}
