import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";

/** A free TCP port on loopback (closed again before it is handed out). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function procStatus(pid: number, field: "VmRSS" | "VmHWM"): number | null {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m").exec(text);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * A child process (the service or the ceiling): `node --v8-pool-size=0 <entry>` for compiled
 * JavaScript (the service's dist/server.mjs, what `npm start` runs), `node --import tsx <entry>` for
 * TypeScript (the ceiling).
 * Node is the direct child, so the pid is the server itself and its memory is read from
 * /proc/<pid>/status (Linux).
 */
export class ChildServer {
  private child: ChildProcess | null = null;
  private exited: Promise<number | null> = Promise.resolve(null);
  private exitCode: number | null | undefined = undefined;
  private exitSignal: NodeJS.Signals | null = null;
  private stopping = false;

  constructor(
    readonly name: string,
    readonly entry: string,
    readonly env: Record<string, string>,
    readonly port: number,
    readonly logFile: string,
  ) {}

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.child?.pid ?? 0;
  }

  async start(readyPath = "/healthz", timeoutMs = 180_000): Promise<void> {
    const log = createWriteStream(this.logFile, { flags: "a" });
    // The service with V8's background threads as `npm start` sets them; the ceilings (TypeScript) as
    // Node ships, as before 27 November: with the flag their c=32 rate fell 17 to 24 % while the
    // service's stayed, which would have read as higher shares (docs/performance.md, Latest figures).
    const args = this.entry.endsWith(".mjs")
      ? ["--v8-pool-size=0", this.entry]
      : ["--import", "tsx", this.entry];
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ...this.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    this.exitCode = undefined;
    this.exitSignal = null;
    this.stopping = false;
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    this.exited = new Promise((resolve) =>
      child.once("exit", (code, signal) => {
        this.exitCode = code;
        this.exitSignal = signal;
        resolve(code);
      }),
    );
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exitCode !== undefined)
        throw new Error(`${this.name} exited with ${this.exitCode} while starting; see ${this.logFile}`);
      try {
        const res = await fetch(`${this.origin}${readyPath}`, { signal: AbortSignal.timeout(2000) });
        if (res.ok) {
          await res.arrayBuffer();
          return;
        }
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    await this.stop();
    throw new Error(
      `${this.name} did not answer ${readyPath} within ${timeoutMs / 1000} s; see ${this.logFile}`,
    );
  }

  /** SIGTERM (graceful stop), then SIGKILL after a bound. */
  async stop(timeoutMs = 30_000): Promise<void> {
    const child = this.child;
    if (!child || this.exitCode !== undefined) return;
    this.stopping = true;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    await this.exited;
    clearTimeout(timer);
    this.child = null;
  }

  /** Why the process is gone, when it ended without being asked to (null while it runs). */
  unexpectedExit(): string | null {
    if (this.exitCode === undefined || this.stopping) return null;
    return `the ${this.name} process exited by itself (code ${this.exitCode}, signal ${this.exitSignal ?? "none"}); see ${this.logFile}`;
  }

  /** Resident memory now, bytes. */
  rss(): number | null {
    return this.child?.pid ? procStatus(this.child.pid, "VmRSS") : null;
  }

  /** Peak resident memory since the last reset (or since start), bytes. */
  peakRss(): number | null {
    return this.child?.pid ? procStatus(this.child.pid, "VmHWM") : null;
  }

  /** Resets the peak to the current RSS (`echo 5 > /proc/<pid>/clear_refs`); false where not allowed. */
  resetPeak(): boolean {
    if (!this.child?.pid) return false;
    try {
      writeFileSync(`/proc/${this.child.pid}/clear_refs`, "5");
      return true;
    } catch {
      return false;
    }
  }
}
