import { holdYoungGenerationDuringStart } from "./start-memory.ts";

/**
 * The service's entry (`npm start` runs it compiled, as dist/server.mjs). It sets how memory grows
 * during start-up before any package is loaded (src/start-memory.ts), then loads the service. The
 * import is by a computed name, so the bundler leaves it out of this file: a bundle's package imports
 * are hoisted above its first line, and would load before the setting otherwise.
 */
holdYoungGenerationDuringStart();

const service = import.meta.url.endsWith(".ts") ? "./server.ts" : "./service.mjs";
await import(service);
