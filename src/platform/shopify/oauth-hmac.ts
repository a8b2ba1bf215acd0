import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The signature Shopify puts on the OAuth callback (decisions section 12): the hex HMAC-SHA256, with
 * the app's secret, of every other query parameter sorted by name and joined as `k=v&…` (decoded
 * values, as Shopify signs them).
 */
export function callbackHmac(params: Readonly<Record<string, string>>, secret: string): string {
  const message = Object.keys(params)
    .filter((name) => name !== "hmac")
    .sort()
    .map((name) => `${name}=${params[name]}`)
    .join("&");
  return createHmac("sha256", secret).update(message).digest("hex");
}

/** Whether `params.hmac` is the callback's signature; compared in constant time. */
export function callbackHmacIsValid(params: Readonly<Record<string, string>>, secret: string): boolean {
  const given = params.hmac;
  if (typeof given !== "string" || !/^[0-9a-f]{64}$/i.test(given)) return false;
  return timingSafeEqual(
    Buffer.from(given.toLowerCase(), "hex"),
    Buffer.from(callbackHmac(params, secret), "hex"),
  );
}
