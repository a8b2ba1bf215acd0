import type { AddressInfo } from "node:net";
import { bootstrapDemoStore } from "./bootstrap.ts";
import { loadConfigOrExit } from "./config.ts";
import { DataDirectoryInUse } from "./db/pglite-lock.ts";
import { raiseLoopPriority } from "./loop-priority.ts";
import { createRuntime } from "./runtime.ts";
import { SecretsRefusal } from "./secrets/index.ts";
import { settleMemoryAfterStart } from "./start-memory.ts";

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const runtime = await createRuntime(config, { logger: { level: config.logLevel } });
  const { app, ctx, worker } = runtime;
  // After the embedded database's thread started (it stays at normal priority), before any request.
  // LOOP_PRIORITY=0 leaves it at 0 (to measure against, or where the host's scheduling is set outside).
  if (process.env.LOOP_PRIORITY !== "0") raiseLoopPriority((message) => app.log.info(message));

  // Stop handlers first, so a signal during start-up still closes the database cleanly.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, "stopping");
    const timer = setTimeout(() => process.exit(1), 20_000);
    timer.unref();
    try {
      // Stops taking requests, lets in-flight ones finish, hands back job leases, closes the database.
      await runtime.close();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, "error while stopping");
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));

  const demo = config.bootstrap === "demo" ? await bootstrapDemoStore(ctx) : null;
  await app.listen({ host: config.host, port: config.port });
  if (stopping) return;
  const { port } = app.server.address() as AddressInfo;
  const base = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  if (config.workers === "on") worker.start();

  const storage = ctx.dbKind === "postgres" ? "PostgreSQL" : `embedded PGlite (${config.dataDir})`;
  const lines = [
    `Stockroom is listening at ${base}/v2 (API reference: ${base}/docs, console: ${base}/console)`,
    `Storage: ${storage}; workers ${config.workers}`,
  ];
  if (demo) {
    lines.push(`Demo store created (id ${demo.storeId}). Full-scope API key, shown once: ${demo.apiKey}`);
    // A newcomer's way into the merchant console: the owner's invitation, which sets the password.
    const mailedTo = config.smtpUrl ? "sent through SMTP_URL" : `written to ${config.outboxDir}`;
    lines.push(
      `Its console sign-in is ${demo.ownerEmail}: choose the password from the invitation ${mailedTo}`,
    );
  }
  if (runtime.generatedAdminToken) lines.push(`Admin token, shown once: ${runtime.generatedAdminToken}`);
  process.stdout.write(`\n${lines.join("\n")}\n\n`);
  // Start-up is over: what it grew and left behind goes before the service sits idle.
  settleMemoryAfterStart();
}

main().catch((error) => {
  // Stored secrets no given key opens, or an embedded database another process has open: told as
  // what they are (no stack trace).
  if (error instanceof SecretsRefusal || error instanceof DataDirectoryInUse) {
    console.error(error.message);
    process.exit(2);
  }
  console.error(error);
  process.exit(1);
});
