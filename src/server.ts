import { bootstrapDemoStore } from "./bootstrap.ts";
import { loadConfigOrExit } from "./config.ts";
import { createRuntime } from "./runtime.ts";

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const runtime = await createRuntime(config, { logger: { level: config.logLevel } });
  const { app, ctx, worker } = runtime;

  const demo = config.bootstrap === "demo" ? await bootstrapDemoStore(ctx) : null;
  await app.listen({ host: config.host, port: config.port });
  const base = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.port}`;
  if (config.workers === "on") worker.start();

  const lines = [`Stockroom is listening at ${base}/v2 (API reference: ${base}/docs)`];
  lines.push(
    `Storage: ${ctx.dbKind === "postgres" ? "PostgreSQL" : `embedded PGlite (${config.dataDir})`}; workers ${config.workers}`,
  );
  if (demo)
    lines.push(`Demo store created (id ${demo.storeId}). Full-scope API key, shown once: ${demo.apiKey}`);
  if (runtime.generatedAdminToken) lines.push(`Admin token, shown once: ${runtime.generatedAdminToken}`);
  process.stdout.write(`\n${lines.join("\n")}\n\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, "stopping");
    const timer = setTimeout(() => process.exit(1), 20_000);
    timer.unref();
    try {
      await runtime.close();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, "error while stopping");
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
