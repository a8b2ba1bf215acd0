import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError } from "../../domain/errors.ts";
import { takeWebhook } from "../../platform/shopify/inbound/index.ts";

/** Shopify sends whole products (every variant) on products/update: more than the API's 1 MB. */
const WEBHOOK_BODY_LIMIT = 10 * 1024 * 1024;

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return typeof value === "string" ? value : undefined;
};

/**
 * POST /shopify/webhooks (decisions section 12, "webhooks in"), outside /v2 and /admin: Shopify signs
 * with an HMAC rather than a key. The body is kept as raw bytes in this scope (the signature covers
 * them exactly as sent), whatever the content type. A bad or missing signature is 401 and nothing is
 * done; anything else is 200 with an empty body, the work queued as jobs.
 */
export async function shopifyWebhookRoutes(app: FastifyInstance): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    "*",
    { parseAs: "buffer", bodyLimit: WEBHOOK_BODY_LIMIT },
    (_request, body, done) => done(null, body),
  );

  app.post("/shopify/webhooks", { schema: { hide: true } }, async (request, reply) => {
    const outcome = await takeWebhook(app.ctx, {
      topic: header(request, "x-shopify-topic"),
      shop: header(request, "x-shopify-shop-domain"),
      hmac: header(request, "x-shopify-hmac-sha256"),
      eventId: header(request, "x-shopify-event-id"),
      triggeredAt: header(request, "x-shopify-triggered-at"),
      body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
    });
    if (outcome.kind === "unauthorized")
      throw new AppError("unauthorized", "The webhook's X-Shopify-Hmac-Sha256 does not match its body.");
    if (outcome.kind === "unknown_shop" || (outcome.kind === "taken" && outcome.work === "ignored"))
      request.log.warn(
        { topic: header(request, "x-shopify-topic"), shop: header(request, "x-shopify-shop-domain") },
        `Shopify webhook not acted on (${outcome.kind === "unknown_shop" ? "unknown shop" : "unknown topic"})`,
      );
    if (outcome.kind === "stale_uninstall")
      request.log.info(
        {
          shop: header(request, "x-shopify-shop-domain"),
          triggered_at: header(request, "x-shopify-triggered-at"),
        },
        "Shopify app/uninstalled older than the shop's current installation: the shop stays connected",
      );
    return reply.code(200).send();
  });
}
