import type { FastifyRequest } from "fastify";
import { PERMISSIONS, type Permission, permissionsOf, type StaffRole } from "../domain/staff/index.ts";
import type { ConsoleActor } from "../http/console-actors.ts";
import { PageForbidden, PageNotFound } from "./page-errors.ts";
import type { Session } from "./session.ts";

/**
 * Who a console request acts as, and what it may change. Pages ask `can(request, "suppliers")` before
 * showing a write control and `requirePermission` (or `requireRole`) before acting on a POST, so a
 * viewer sees no write control and a forged POST is refused with 403 (the API refuses it too, since
 * calls go through `storeApi` as this actor).
 */

const sessions = new WeakMap<FastifyRequest, Session>();

/** Called by the console's request hook once the cookie names a live session. */
export function attachSession(request: FastifyRequest, session: Session): void {
  sessions.set(request, session);
}

export function sessionOf(request: FastifyRequest): Session | null {
  return sessions.get(request) ?? null;
}

function signedIn(request: FastifyRequest): Session {
  const session = sessions.get(request);
  if (!session) throw new Error("console page reached without a session");
  return session;
}

/** The store a page is about: the path's `:storeId` (or `:id` under /console/stores). */
export function storeIdOf(request: FastifyRequest): number {
  const params = (request.params ?? {}) as Record<string, unknown>;
  const text = String(params.storeId ?? params.id ?? "");
  if (!/^\d{1,10}$/.test(text) || Number(text) < 1 || Number(text) > 2147483647) throw new PageNotFound();
  return Number(text);
}

/** The operator's session (every store) or a staff member's role. */
export function roleOf(request: FastifyRequest): "operator" | StaffRole {
  const { actor } = signedIn(request);
  return actor.kind === "operator" ? "operator" : actor.role;
}

/**
 * The actor the console calls the APIs as in this store. A staff member of another store gets the
 * same 404 as a store that does not exist.
 */
export function consoleActorOf(request: FastifyRequest, storeId = storeIdOf(request)): ConsoleActor {
  const { actor } = signedIn(request);
  if (actor.kind === "operator")
    return { storeId, by: "operator", actorId: 0, permissions: PERMISSIONS, operator: true };
  if (actor.storeId !== storeId) throw new PageNotFound("There is no store with that id.");
  return {
    storeId,
    by: actor.email,
    actorId: -actor.staffId,
    permissions: permissionsOf(actor.role),
    operator: false,
  };
}

/** Whether the signed-in user may make this kind of change in the page's store. */
export function can(request: FastifyRequest, permission: Permission, storeId?: number): boolean {
  const { actor } = signedIn(request);
  if (actor.kind === "operator") return true;
  if (storeId !== undefined && storeId !== actor.storeId) return false;
  return permissionsOf(actor.role).includes(permission);
}

/** Refuses (403 page, nothing changed) unless the user may make this kind of change. */
export function requirePermission(request: FastifyRequest, permission: Permission): void {
  if (!can(request, permission)) throw new PageForbidden();
}

/** Refuses (403 page, nothing changed) unless the operator's session. */
export function requireOperator(request: FastifyRequest): void {
  if (roleOf(request) !== "operator") throw new PageForbidden();
}

/** Refuses (403 page, nothing changed) unless the operator or a staff member of one of these roles. */
export function requireRole(request: FastifyRequest, ...roles: StaffRole[]): void {
  const role = roleOf(request);
  if (role !== "operator" && !roles.includes(role)) throw new PageForbidden();
}
