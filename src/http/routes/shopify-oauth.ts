import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context.ts";
import { AppError } from "../../domain/errors.ts";
import {
  beginInstall,
  CALLBACK_PATH,
  completeInstall,
  type InstallAttacher,
  oauthAppOf,
} from "../../platform/shopify/index.ts";

/** Without the app's key and secret the routes are not there: the answer of an unknown path. */
function noRoute(url: string): AppError {
  return new AppError("not_found", `No route GET ${url.split("?")[0]}.`);
}

export interface ShopifyOAuthRouteOptions {
  attacher: InstallAttacher;
  /**
   * Where the merchant's browser lands once the shop is attached: the merchant console (decisions
   * section 13), whose page for a store without an owner yet asks for the owner's email.
   */
  landingPath(ctx: AppContext, storeId: number): Promise<string>;
}

/**
 * The Shopify app's OAuth install (decisions section 12): `GET /shopify/install?shop=` sends the
 * merchant to Shopify's authorize page; `GET /shopify/callback` checks what Shopify sends back,
 * attaches the shop and sends the browser on. Both answer 404, as an unknown path would, when the
 * service has no SHOPIFY_API_KEY and SHOPIFY_API_SECRET. Not part of the /v2 contract (no key, no
 * OpenAPI entry): the browser of the merchant installing the app calls them.
 */
export function shopifyOAuthRoutes(options: ShopifyOAuthRouteOptions) {
  return async function routes(app: FastifyInstance): Promise<void> {
    const ctxOf = () => app.ctx;

    app.get("/shopify/install", { schema: { hide: true } }, async (request, reply) => {
      const ctx = ctxOf();
      if (!oauthAppOf(ctx)) throw noRoute(request.url);
      const shop = new URL(request.url, "http://service").searchParams.get("shop") ?? undefined;
      const location = await beginInstall(ctx, shop);
      return reply.header("cache-control", "no-store").redirect(location, 302);
    });

    app.get(CALLBACK_PATH, { schema: { hide: true } }, async (request, reply) => {
      const ctx = ctxOf();
      if (!oauthAppOf(ctx)) throw noRoute(request.url);
      const query = new URL(request.url, "http://service").searchParams;
      const { storeId } = await completeInstall(ctx, query, options.attacher);
      const landing = await options.landingPath(ctx, storeId);
      return reply.header("cache-control", "no-store").redirect(landing, 302);
    });
  };
}
