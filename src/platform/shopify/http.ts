import type { Dispatcher } from "undici";
import type { ProcessResources } from "../../resources.ts";
import { undici } from "../../undici.ts";

/** A whole Admin API exchange (connect, headers, body) is bounded by this by default. */
export const SHOPIFY_TIMEOUT_MS = 30_000;

/**
 * The connection pool every shop's client shares in one process (build it once, e.g. in
 * ctx.resources, never per call). headersTimeout/bodyTimeout are idle timers; the client bounds each
 * exchange as a whole with an abort signal.
 */
export function createShopifyAgent(timeoutMs = SHOPIFY_TIMEOUT_MS): Dispatcher {
  const { Agent } = undici();
  return new Agent({
    connect: { timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connections: 16,
  });
}

const AGENT_KEY = {};

/** The process's one Shopify pool (ctx.resources), closed when the runtime closes. */
export function shopifyDispatcherOf(ctx: { resources: ProcessResources }): Dispatcher {
  return ctx.resources.get(
    AGENT_KEY,
    () => createShopifyAgent(),
    (agent) => agent.close(),
  );
}
