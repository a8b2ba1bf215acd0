/**
 * Real service processes for the reliability tests: `node --import tsx src/server.ts` (API, with or
 * without in-process workers) and `src/worker.ts` (workers only), on a PostgreSQL database and Redis,
 * with the test CA trusted through NODE_EXTRA_CA_CERTS. Output goes to a log file per process (kept
 * when a test fails, for the post-mortem).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, mkdtempSync, readFileSync, type WriteStream } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../../..");
export const ADMIN_TOKEN = "reliability-admin-token-0123456789";
/**
 * The processes of a test share one database but keep nothing on disk (DATA_DIR=:memory:), so they
 * need one sealing key between them, the same across restarts, as a deployment gives SECRETS_KEY.
 */
const SECRETS_KEY = randomBytes(32).toString("base64");
export const REDIS_URL =
  process.env.REDIS_URL && process.env.REDIS_URL !== "" ? process.env.REDIS_URL : "redis://127.0.0.1:6379";

const logDir = mkdtempSync(path.join(tmpdir(), "stockroom-reliability-logs-"));

/** A free TCP port on 127.0.0.1 (the service then listens on it, across restarts). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ServiceOptions {
  kind: "server" | "worker";
  databaseUrl: string;
  /** Server only. */
  port?: number;
  /** Extra environment (WORKERS, WEBHOOK_RETRY_SCHEDULE, NODE_EXTRA_CA_CERTS, ...). */
  env?: Record<string, string>;
  name: string;
}

export class ServiceProcess {
  child: ChildProcess | null = null;
  readonly logFile: string;
  private log: WriteStream | null = null;
  private exited: Promise<number | null> = Promise.resolve(null);
  starts = 0;
  /** Milliseconds from spawn to ready, per start. */
  readonly startupMs: number[] = [];

  constructor(readonly options: ServiceOptions) {
    this.logFile = path.join(logDir, `${options.name}.log`);
  }

  get pid(): number {
    return this.child?.pid ?? 0;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.options.port}`;
  }

  /** Spawns the process and resolves once it is ready (server: listening; worker: started). */
  async start(timeoutMs = 60_000): Promise<void> {
    const { kind, databaseUrl, port, env } = this.options;
    const script = kind === "server" ? "src/server.ts" : "src/worker.ts";
    this.log ??= createWriteStream(this.logFile, { flags: "a" });
    this.starts++;
    this.log.write(`\n==== start ${this.starts} (${new Date().toISOString()}) ====\n`);
    const started = Date.now();
    const child = spawn(process.execPath, ["--import", "tsx", script], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        DATABASE_URL: databaseUrl,
        REDIS_URL,
        ADMIN_TOKEN,
        BOOTSTRAP: "none",
        WEBHOOK_ALLOW_PRIVATE: "true",
        DATA_DIR: ":memory:",
        SECRETS_KEY,
        OUTBOX_DIR: path.join(logDir, "outbox"),
        LOG_LEVEL: kind === "worker" ? "info" : "warn",
        HOST: "127.0.0.1",
        PORT: String(port ?? 0),
        ...env,
      },
    });
    this.child = child;
    this.exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
    const marker = kind === "server" ? "Stockroom is listening" : '"worker started"';
    await new Promise<void>((resolve, reject) => {
      let seen = "";
      let ready = false;
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`${this.options.name} not ready after ${timeoutMs} ms (log: ${this.logFile})`));
      }, timeoutMs);
      const onData = (chunk: Buffer) => {
        this.log?.write(chunk);
        if (ready) return;
        seen = (seen + chunk.toString("utf8")).slice(-4096);
        if (seen.includes(marker)) {
          ready = true;
          cleanup();
          resolve();
        }
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(
          new Error(`${this.options.name} exited with ${code} before it was ready (log: ${this.logFile})`),
        );
      };
      const cleanup = () => {
        clearTimeout(timer);
        child.off("exit", onExit);
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", (chunk: Buffer) => this.log?.write(chunk));
      child.once("exit", onExit);
    });
    this.startupMs.push(Date.now() - started);
  }

  /** Sends `signal` and waits for the process to be gone. */
  async kill(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    child.kill(signal);
    await this.exited;
  }

  /** SIGTERM (graceful), then SIGKILL if it is not gone in `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await this.exited;
    clearTimeout(timer);
    await new Promise<void>((resolve) => (this.log ? this.log.end(resolve) : resolve()));
    this.log = null;
  }

  tail(lines = 40): string {
    try {
      return readFileSync(this.logFile, "utf8").split("\n").slice(-lines).join("\n");
    } catch {
      return "";
    }
  }
}

export async function startService(options: ServiceOptions): Promise<ServiceProcess> {
  const service = new ServiceProcess(options);
  await service.start();
  return service;
}

/** Forgets the Redis rate-limit counters of these keys and stores (ids restart in every fresh database). */
export async function resetRateLimits(keyIds: number[], storeIds: number[]): Promise<void> {
  const { Redis } = await import("ioredis");
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    const keys = [
      ...keyIds.map((id) => `rl:key:${id}`),
      ...storeIds.flatMap((id) => [`rl:store:${id}`, `rl:writes:${id}`]),
    ];
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
