import { SCOPES, type Scope } from "../scopes.ts";

/**
 * A store's staff roles (docs/decisions.md §13) and what each may change. Everyone reads everything in
 * their store; a role names the kinds of change it may make. The console maps these onto the public
 * API's scopes, so a staff member's change passes the same scope check an API key's would.
 */
export const STAFF_ROLES = ["owner", "purchasing", "inventory", "viewer"] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/** The kinds of change a console user may make; the console shows a write control only for these. */
export const PERMISSIONS = [
  /** suppliers, their catalogs and prices */
  "suppliers",
  /** purchase orders, their payments and documents (PDF, sending) */
  "purchase_orders",
  /** recording and voiding receipts of an order */
  "receiving",
  /** stock adjustments and alert rules */
  "stock",
  /** keys, webhooks, rates, numbering, locations, staff, the platform: the store's settings */
  "settings",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const ROLE_PERMISSIONS: Record<StaffRole, readonly Permission[]> = {
  owner: PERMISSIONS,
  purchasing: ["suppliers", "purchase_orders", "receiving"],
  inventory: ["stock", "receiving"],
  viewer: [],
};

export function isStaffRole(value: unknown): value is StaffRole {
  return typeof value === "string" && (STAFF_ROLES as readonly string[]).includes(value);
}

export function permissionsOf(role: StaffRole): readonly Permission[] {
  return ROLE_PERMISSIONS[role];
}

/** The API scopes a set of permissions stands for ("receiving" is granted per route, not by scope). */
export function scopesOf(permissions: readonly Permission[]): Scope[] {
  if (permissions.includes("settings")) return [...SCOPES];
  const scopes: Scope[] = ["read"];
  if (permissions.includes("suppliers")) scopes.push("write:suppliers");
  if (permissions.includes("purchase_orders")) scopes.push("write:purchase_orders");
  if (permissions.includes("stock")) scopes.push("write:inventory");
  return scopes;
}
