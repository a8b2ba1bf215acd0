/** Where a shop's Admin API is and which version is spoken (docs/decisions.md, "Shopify connector"). */
export interface ShopifyEndpointSettings {
  /** `SHOPIFY_ADMIN_ORIGIN`: every Admin API request goes here instead of `https://{shop}` (tests). */
  adminOrigin: string | null;
  /** `SHOPIFY_API_VERSION`, default 2026-10. */
  apiVersion: string;
}

export const DEFAULT_SHOPIFY_API_VERSION = "2026-10";

export function shopifyEndpointSettings(env: Record<string, string | undefined>): ShopifyEndpointSettings {
  const origin = env.SHOPIFY_ADMIN_ORIGIN?.trim() || null;
  const version = env.SHOPIFY_API_VERSION?.trim() || DEFAULT_SHOPIFY_API_VERSION;
  if (!/^\d{4}-(01|04|07|10)$/.test(version))
    throw new Error(
      `SHOPIFY_API_VERSION must name a release such as 2026-10, not ${JSON.stringify(version)}`,
    );
  if (origin !== null && !/^https?:\/\/[^/]+$/.test(origin))
    throw new Error(
      `SHOPIFY_ADMIN_ORIGIN must be an origin (scheme and host), not ${JSON.stringify(origin)}`,
    );
  return { adminOrigin: origin, apiVersion: version };
}

/** The GraphQL endpoint of one shop. */
export function graphqlUrl(settings: ShopifyEndpointSettings, shop: string): string {
  const origin = settings.adminOrigin ?? `https://${shop}`;
  return `${origin}/admin/api/${settings.apiVersion}/graphql.json`;
}
