import { PlatformTransientError } from "../connector.ts";

/**
 * Shopify answered 401: the access token is revoked, expired or wrong. It is transient for the push
 * job (records wait, as they will while a store is `disconnected`) but a class of its own, so the
 * code that attaches stores and refreshes tokens can tell it from an outage.
 */
export class ShopifyUnauthorizedError extends PlatformTransientError {
  override name = "ShopifyUnauthorizedError";
}
