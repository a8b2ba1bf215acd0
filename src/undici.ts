import { createRequire } from "node:module";

type Undici = typeof import("undici");
let loaded: Undici | undefined;

/**
 * The undici package (the HTTP client of webhook deliveries and of the Shopify connector), required on
 * first use rather than imported at the top: most processes never send either (the CLI, a service on
 * the simulated platform with no webhooks, nearly every test file), and its ~110 modules cost ~0.15 s
 * of CPU to load (docs/developing.md). Cached: a delivery or an Admin API call pays one lookup.
 */
export function undici(): Undici {
  loaded ??= createRequire(import.meta.url)("undici") as Undici;
  return loaded;
}
