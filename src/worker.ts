import { ConfigError, loadConfig } from "./config.ts";
import { createRuntime } from "./runtime.ts";

/** `npm run worker`: background work only, no HTTP listener, so workers scale apart from the API. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
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
  console.error(error);
  process.exit(1);
});
