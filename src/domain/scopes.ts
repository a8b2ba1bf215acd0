export const SCOPES = [
  "read",
  "write:purchase_orders",
  "write:suppliers",
  "write:inventory",
  "write:manufacturing",
  "webhooks",
] as const;
export type Scope = (typeof SCOPES)[number];

/** Every key can read; other scopes must have been granted at creation. */
export function keyHasScope(granted: readonly string[], needed: Scope): boolean {
  return needed === "read" || granted.includes(needed);
}
