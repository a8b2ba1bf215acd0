import type { Command } from "commander";
import { CliError } from "../client.ts";
import { outputOf, positiveIntArg } from "../context.ts";

/** Options shared by the commands that open the database themselves; they override the environment. */
function withStorage(command: Command): Command {
  return command
    .option("--database-url <url>", "PostgreSQL URL (default: DATABASE_URL; none: embedded PGlite)")
    .option("--data-dir <dir>", "PGlite data directory (default: DATA_DIR or ./data)");
}

function applyStorageOptions(opts: { databaseUrl?: string; dataDir?: string }): void {
  if (opts.databaseUrl !== undefined) process.env.DATABASE_URL = opts.databaseUrl;
  if (opts.dataDir !== undefined) process.env.DATA_DIR = opts.dataDir;
}

async function loadConfigOrFail() {
  const { ConfigError, loadConfig } = await import("../../config.ts");
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(`Configuration error: ${error.message}`, 2);
    throw error;
  }
}

export function registerServerCommands(program: Command): void {
  const db = program.command("db").description("database maintenance");
  withStorage(
    db
      .command("migrate")
      .description("apply pending migrations to the configured database (DATABASE_URL / DATA_DIR)"),
  ).action(async (opts, command: Command) => {
    const out = outputOf(command);
    applyStorageOptions(opts);
    const config = await loadConfigOrFail();
    // Loaded here, not at the top: every other command is an HTTP client that needs none of it, and kysely
    // alone is some 260 modules.
    const { sql } = await import("kysely");
    const { openDatabase } = await import("../../db/database.ts");
    const { migrateToLatest } = await import("../../db/migrations/index.ts");
    const target = config.databaseUrl
      ? `PostgreSQL ${redactUrl(config.databaseUrl)}`
      : config.dataDir === ":memory:"
        ? "an in-memory PGlite database (nothing is kept)"
        : `embedded PGlite in ${config.dataDir}`;
    let handle: Awaited<ReturnType<typeof openDatabase>>;
    try {
      handle = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    } catch (error) {
      throw new CliError(`Cannot open ${target}: ${(error as Error).message}`);
    }
    try {
      const applied = async (): Promise<string[]> => {
        const exists = await sql<{
          found: string | null;
        }>`select to_regclass('kysely_migration')::text as found`.execute(handle.db);
        if (!exists.rows[0]?.found) return [];
        const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
          handle.db,
        );
        return rows.rows.map((r) => r.name);
      };
      const before = await applied();
      try {
        await migrateToLatest(handle.db as never);
      } catch (error) {
        throw new CliError(`Migrating ${target} failed: ${(error as Error).message}`);
      }
      const after = await applied();
      const result = {
        database: config.databaseUrl ? "postgres" : "pglite",
        applied: after.filter((name) => !before.includes(name)),
        current: after,
      };
      out.emit(result, () =>
        result.applied.length === 0
          ? `${target} is up to date (${after.length} migrations).\n`
          : `Applied to ${target}:\n${result.applied.map((n) => `  ${n}`).join("\n")}\n`,
      );
    } finally {
      await handle.close();
    }
  });

  withStorage(
    program
      .command("serve")
      .description("start the API (and, unless --no-workers, the background workers)")
      .option("--port <port>", "port (default: PORT or 3000)", positiveIntArg)
      .option("--host <host>", "address to listen on (default: HOST or 127.0.0.1)")
      .option("--no-workers", "API only (WORKERS=off)"),
  ).action(async (opts) => {
    applyStorageOptions(opts);
    if (opts.port !== undefined) process.env.PORT = String(opts.port);
    if (opts.host !== undefined) process.env.HOST = opts.host;
    if (opts.workers === false) process.env.WORKERS = "off";
    await runEntryPoint(() => import("../../server.ts"));
  });

  withStorage(program.command("worker").description("run the background workers only (no HTTP)")).action(
    async (opts) => {
      applyStorageOptions(opts);
      await runEntryPoint(() => import("../../worker.ts"));
    },
  );
}

/**
 * Runs src/server.ts or src/worker.ts in this process. They install their graceful-stop handlers only once
 * started; a SIGTERM/SIGINT arriving before that is held and delivered to them as soon as they have, so an
 * early stop is still graceful. A second signal while one is held stops the process at once.
 */
async function runEntryPoint(load: () => Promise<unknown>): Promise<void> {
  const signals = ["SIGTERM", "SIGINT"] as const;
  let held: NodeJS.Signals | null = null;
  const hold = (signal: NodeJS.Signals) => {
    // Their own handler is in place and got this signal too: nothing to hold.
    if (process.listenerCount(signal) >= 2) return;
    if (held) process.exit(signal === "SIGINT" ? 130 : 143);
    held = signal;
  };
  for (const signal of signals) process.on(signal, hold);
  const timer = setInterval(() => {
    if (signals.some((signal) => process.listenerCount(signal) < 2)) return;
    clearInterval(timer);
    for (const signal of signals) process.off(signal, hold);
    if (held) process.kill(process.pid, held);
  }, 20);
  timer.unref();
  await load();
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.href;
  } catch {
    return "(unparseable URL)";
  }
}
