import { loadConfigOrExit } from "./config.ts";
import { DataDirectoryInUse } from "./db/pglite-lock.ts";
import { createRuntime } from "./runtime.ts";
import { SecretsRefusal } from "./secrets/index.ts";

/** `npm run worker`: background work only, no HTTP listener, so workers scale apart from the API. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const runtime = await createRuntime(config, { logger: { level: config.logLevel } });
  runtime.worker.start();
  runtime.app.log.info({ worker: runtime.worker.id }, "worker started");
  const stop = async () => {
    await runtime.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
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
