import type { FastifyReply, FastifyRequest } from "fastify";
import { consoleActorOf } from "./actor.ts";
import { AdminApi } from "./admin.ts";
import type { StoreRef } from "./layout.ts";
import { PageNotFound } from "./page-errors.ts";
import type { Flash, Session } from "./session.ts";

/**
 * What a console page handler gets: the signed-in session and an admin API client acting as the user.
 * Store data goes through `storeApi(request)` (store-api.ts), the public API as the user.
 */
export interface PageContext {
  request: FastifyRequest;
  reply: FastifyReply;
  session: Session;
  admin: AdminApi;
}

export type FormBody = Record<string, string | string[]>;

export { PageForbidden, PageNotFound } from "./page-errors.ts";

export function contextOf(request: FastifyRequest, reply: FastifyReply, session: Session): PageContext {
  // The operator calls the admin API with the admin token; a staff member as a console actor, which the
  // admin API lets through to their own store's routes only, and only for the owner.
  const { actor } = session;
  const credentials = actor.kind === "operator" ? actor.token : consoleActorOf(request, actor.storeId);
  return { request, reply, session, admin: new AdminApi(request.server, credentials) };
}

export function formOf(request: FastifyRequest): FormBody {
  const body = request.body;
  return body && typeof body === "object" ? (body as FormBody) : {};
}

/** The first value of a form field, trimmed ("" when absent). */
export function field(form: FormBody, name: string): string {
  const value = form[name];
  return (Array.isArray(value) ? (value[0] ?? "") : (value ?? "")).trim();
}

export function fieldList(form: FormBody, name: string): string[] {
  const value = form[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map((v) => v.trim()).filter((v) => v !== "");
}

export function queryOf(request: FastifyRequest): Record<string, string> {
  const q = (request.query ?? {}) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(q)) out[k] = Array.isArray(v) ? String(v[0] ?? "") : String(v ?? "");
  return out;
}

/** A positive integer id from the path, else the page does not exist. */
export function idOf(raw: unknown): number {
  const text = String(raw ?? "");
  if (!/^\d{1,10}$/.test(text) || Number(text) < 1 || Number(text) > 2147483647) throw new PageNotFound();
  return Number(text);
}

/** A platform id (variant, inventory item) from the path or a form: up to 2^53-1 (decisions §12). */
export function platformIdOf(raw: unknown): number {
  const text = String(raw ?? "");
  if (!/^\d{1,16}$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < 1)
    throw new PageNotFound();
  return Number(text);
}

/** Takes the one-shot messages of the session. */
export function takeFlash(session: Session): Flash[] {
  const flash = session.flash;
  session.flash = [];
  return flash;
}

export function sendPage(reply: FastifyReply, body: string, status = 200): FastifyReply {
  return reply.code(status).type("text/html; charset=utf-8").send(body);
}

/** POST-redirect-GET: 303 so a reload never repeats the action. */
export function redirectTo(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header("location", location).send();
}

export interface ShopifyState {
  shop: string;
  api_version: string;
  scopes: string[];
  status: "importing" | "connected" | "disconnected";
  disconnected_reason: string | null;
  import_error: string | null;
  imported_at: string | null;
  last_webhook_at: string | null;
  last_reconciled_at: string | null;
}

export interface StoreSummary extends StoreRef {
  domain: string;
  currency: string;
  timezone: string;
  owner_email: string | null;
  platform: string;
  /** A Shopify store's shop and its state (absent on the simulated platform). */
  shopify?: ShopifyState;
  api_access: boolean;
  numbering: Record<string, string | number>;
  rate_limits: Record<string, number>;
  created_at: string;
  updated_at: string;
}

export async function loadStore(ctx: PageContext, rawId: unknown): Promise<StoreSummary> {
  const id = idOf(rawId);
  try {
    return (await ctx.admin.get<{ data: StoreSummary }>(`/admin/stores/${id}`)).data;
  } catch (error) {
    if ((error as { status?: number }).status === 404)
      throw new PageNotFound("There is no store with that id.");
    throw error;
  }
}
