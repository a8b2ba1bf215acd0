import { randomBytes } from "node:crypto";
import type { Scope } from "../domain/scopes.ts";
import type { Permission } from "../domain/staff/index.ts";
import { scopesOf } from "../domain/staff/index.ts";

/**
 * Who a console page acts as when it calls the public API (/v2) or the admin API in process.
 *
 * The console never holds an API key. For each call it registers the actor here and sends
 * `Authorization: Console <ticket>`: a random ticket that lives in this process's memory for the
 * duration of that one in-process call and is never sent to a browser or over a socket. The API's
 * authentication resolves the ticket to this actor, so every /v2 rule (validation, scopes, events,
 * webhooks, history, pushes, idempotency) applies as it does to a key, with history written as
 * `by` = the actor, `via` = "console".
 */
export interface ConsoleActor {
  storeId: number;
  /** History's `by`: the staff member's email, or "operator" for the admin-token session. */
  by: string;
  /**
   * Stands for the API key id where the API keeps things per key (Idempotency-Keys): 0 for the
   * operator, minus the staff id for a staff member, so no two actors (nor any key) share one.
   */
  actorId: number;
  permissions: readonly Permission[];
  /** The operator's session: every store, the admin API's operator-only routes included. */
  operator: boolean;
}

/** The `via` of history rows written through the console. */
export const CONSOLE_VIA = "console";

export class ConsoleActors {
  private readonly tickets = new Map<string, ConsoleActor>();

  /** Runs `call` with a ticket standing for `actor`; the ticket is gone once the call settles. */
  async with<T>(actor: ConsoleActor, call: (authorization: string) => Promise<T>): Promise<T> {
    const ticket = randomBytes(32).toString("base64url");
    this.tickets.set(ticket, actor);
    try {
      return await call(`Console ${ticket}`);
    } finally {
      this.tickets.delete(ticket);
    }
  }

  /** The actor an Authorization header's console ticket stands for; null when it is none of ours. */
  resolve(authorization: string | undefined): ConsoleActor | null {
    const match = /^Console\s+(\S+)\s*$/.exec(authorization ?? "");
    return match ? (this.tickets.get(match[1]) ?? null) : null;
  }
}

export function isConsoleAuthorization(authorization: string | undefined): boolean {
  return /^Console\s/.test(authorization ?? "");
}

/** Whether the actor may call a /v2 route needing `scope` (`receiving`: the route records or voids a receipt). */
export function consoleActorAllowed(actor: ConsoleActor, scope: Scope, receiving: boolean): boolean {
  if (scope === "read") return true;
  if (receiving && actor.permissions.includes("receiving")) return true;
  return scopesOf(actor.permissions).includes(scope);
}

/** Admin routes of a store any of its staff may read (the store's settings areas are the owner's). */
const STAFF_READABLE = new Set([
  "/admin/stores/:id",
  "/admin/stores/:id/alert_rules",
  "/admin/stores/:id/locations",
  "/admin/stores/:id/tax_rates",
  "/admin/stores/:id/exchange_rates",
  "/admin/stores/:id/purchase_orders",
  "/admin/stores/:id/purchase_orders/:po_id",
  "/admin/stores/:id/purchase_orders/:po_id/pdf",
]);

/** Admin writes of a store open to a permission short of its settings. */
const STAFF_WRITABLE: Record<string, Permission> = {
  "PUT /admin/stores/:id/alert_rules": "stock",
};

/**
 * The admin writes an owner may make in their store (decisions section 13: tax and exchange rates,
 * numbering, location visibility, keys and API access, webhooks, staff, the platform's sync queue).
 * A list of what is allowed, so an admin route added later is the operator's until it is named here;
 * the rest (rate limits, the shop's token, supplier network links, the simulator's controls, other
 * stores, creating stores) is what the operator alone sets.
 */
const OWNER_WRITABLE = new Set([
  "PATCH /admin/stores/:id",
  "PUT /admin/stores/:id/alert_rules",
  "PUT /admin/stores/:id/tax_rates",
  "PUT /admin/stores/:id/exchange_rates",
  "PATCH /admin/stores/:id/locations/:location_id",
  "POST /admin/stores/:id/keys",
  "POST /admin/stores/:id/keys/:key_id/revoke",
  "POST /admin/stores/:id/staff",
  "PATCH /admin/stores/:id/staff/:staff_id",
  "POST /admin/stores/:id/staff/:staff_id/invitation",
  "POST /admin/stores/:id/webhooks/:webhook_id/deliveries/:delivery_id/redeliver",
  "POST /admin/stores/:id/sync/:job_id/retry",
]);

/**
 * Of an owner's writes, those whose body mixes the owner's settings with the operator's: the fields the
 * owner may send. `PATCH /admin/stores/{id}` also takes the name, the owner email, the rate limits (the
 * store's plan) and a Shopify access token, which are the operator's.
 */
const OWNER_BODY_FIELDS: Record<string, ReadonlySet<string>> = {
  "PATCH /admin/stores/:id": new Set(["numbering", "api_access"]),
};

/**
 * Whether the actor may call an admin API route (`routeUrl` as registered, e.g. /admin/stores/:id/keys):
 * the operator any; a staff member only their own store's, where everyone reads the store and its
 * purchasing and stock views, the alert rules are written with the stock permission, the owner (the
 * settings permission) reads every route of the store and makes the writes `OWNER_WRITABLE` names.
 */
export function consoleAdminAllowed(
  actor: ConsoleActor,
  method: string,
  routeUrl: string,
  params: unknown,
): boolean {
  if (actor.operator) return true;
  if (routeUrl !== "/admin/stores/:id" && !routeUrl.startsWith("/admin/stores/:id/")) return false;
  if (String((params as { id?: unknown } | null)?.id ?? "") !== String(actor.storeId)) return false;
  const read = method === "GET" || method === "HEAD";
  if (read && STAFF_READABLE.has(routeUrl)) return true;
  const permission = STAFF_WRITABLE[`${method} ${routeUrl}`];
  if (permission && actor.permissions.includes(permission)) return true;
  if (!actor.permissions.includes("settings")) return false;
  return read || OWNER_WRITABLE.has(`${method} ${routeUrl}`);
}

/**
 * The body fields of an admin write the actor may not send (none for the operator): checked once the
 * body is parsed, so an owner's request carrying an operator's field is refused whole, before it is
 * validated or anything changes.
 */
export function consoleAdminFieldsRefused(
  actor: ConsoleActor,
  method: string,
  routeUrl: string,
  body: unknown,
): string[] {
  if (actor.operator) return [];
  const allowed = OWNER_BODY_FIELDS[`${method} ${routeUrl}`];
  if (!allowed || body === null || typeof body !== "object") return [];
  return Object.keys(body).filter((name) => !allowed.has(name));
}
