import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Permission } from "../domain/staff/index.ts";
import { currentStaff } from "../domain/staff/index.ts";
import { html } from "../html/template.ts";
import { attachSession, requireOperator, requirePermission, sessionOf } from "./actor.ts";
import { AdminApi, AdminError, FeatureUnavailable } from "./admin.ts";
import { consoleCss, consoleIcon, consoleJs } from "./assets.ts";
import {
  contextOf,
  type FormBody,
  field,
  formOf,
  type PageContext,
  PageForbidden,
  PageNotFound,
  redirectTo,
  sendPage,
} from "./context.ts";
import { errorSummary, notAvailable, page } from "./layout.ts";
import { alertRulesPage, saveAlertRulesAction } from "./pages/alert-rules.ts";
import { purchaseOrderDraftRoutes } from "./pages/purchase-order-draft.ts";
import { purchaseOrderRoutes } from "./pages/purchase-orders.ts";
import { receivingRoutes } from "./pages/receiving-routes.ts";
import { settingsRoutes } from "./pages/settings-routes.ts";
import { stockRoutes } from "./pages/stock.ts";
import { stockAdjustmentRoutes } from "./pages/stock-adjustments.ts";
import { createStoreAction, storePage, storesPage } from "./pages/stores.ts";
import { supplierRoutes } from "./pages/suppliers.ts";
import { queryString } from "./query-string.ts";
import {
  LOGIN_COOKIE,
  parseCookies,
  randomToken,
  SESSION_COOKIE,
  SESSION_TTL_MS,
  type Session,
  type SessionActor,
  SessionStore,
  safeEqualText,
  serializeCookie,
} from "./session.ts";
import { registerStaffAuth, staffActorOf, staffSignInForm } from "./staff-auth.ts";

/**
 * The merchant console at /console: server-rendered pages over the admin API.
 *
 * - Sign-in: a form POST of the admin token, checked by calling the admin API with it. The session is a
 *   random id in a signed, HttpOnly, SameSite=Strict cookie scoped to /console; the token stays in
 *   server memory (see session.ts).
 * - CSRF: SameSite=Strict, plus a per-session token in every form, checked on every POST (403 otherwise).
 *   The sign-in form carries its own double-submit token (a short-lived cookie scoped to /console/login).
 * - Every page is an `app.inject` into /admin with the session's token, so the admin API's validation and
 *   rules apply as they are. Pages whose admin routes are missing say so instead of failing.
 */

const FORM_LIMIT = 256 * 1024;
const LOGIN_FAILURES_ALLOWED = 10;
const LOGIN_WINDOW_MS = 15 * 60 * 1000;
const CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "script-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

type Params = Record<string, string>;

function parseForm(text: string): FormBody {
  const out: FormBody = Object.create(null);
  for (const [name, value] of new URLSearchParams(text)) {
    const existing = out[name];
    if (existing === undefined) out[name] = value;
    else out[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

/** Where to go after signing in: only a console path, never another site. */
function safeNext(raw: string): string {
  return /^\/console\/[^/\\]/.test(raw) && !raw.includes("//") && !/[\r\n]/.test(raw)
    ? raw
    : "/console/stores";
}

function isSecure(request: FastifyRequest): boolean {
  return request.protocol === "https";
}

async function consolePlugin(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const sessions = new SessionStore(ctx.clock);
  const loginFailures = new Map<string, { count: number; resetAt: number }>();

  const refuse = (reply: FastifyReply, session: Session) =>
    sendPage(
      reply,
      page({ title: "Not allowed", session, body: html`<p role="alert">${new PageForbidden().message}</p>` }),
      403,
    );

  // Forms post as application/x-www-form-urlencoded; this parser exists in this scope only.
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string", bodyLimit: FORM_LIMIT },
    (_request, body, done) => done(null, parseForm(body as string)),
  );

  // Pages without a session: sign-in, assets, and those reached from a mailed link (staff-auth.ts).
  const isPublic = (url: string) =>
    url === "/console/login" ||
    url === "/console/login/choose" ||
    url === "/console/forgot" ||
    url.startsWith("/console/password/") ||
    url.startsWith("/console/welcome/") ||
    url.startsWith("/console/assets/");

  app.addHook("onRequest", async (request, reply) => {
    const path = request.url.split("?")[0];
    let session = sessions.fromCookie(parseCookies(request.headers.cookie)[SESSION_COOKIE]);
    // A staff member's role and standing are read on every request: a change or a disabling applies at once.
    if (session?.actor.kind === "staff") {
      const staff = await currentStaff(ctx, session.actor.staffId);
      if (!staff || staff.disabled_at !== null) {
        sessions.destroy(session.id);
        session = null;
      } else session.actor = staffActorOf(staff);
    }
    if (session) attachSession(request, session);
    if (isPublic(path)) return;
    if (!session) {
      if (request.method === "GET" || request.method === "HEAD") {
        const next = request.url === "/console" || request.url === "/console/" ? "" : request.url;
        return redirectTo(reply, `/console/login${queryString({ next })}`);
      }
      return sendPage(
        reply,
        page({
          title: "Signed out",
          session: null,
          body: html`<p>Your session has ended. <a href="/console/login">Sign in</a> again.</p>`,
        }),
        401,
      );
    }
  });

  // A staff member stays in their store: its pages only, another store's are 404; the store list and the
  // operator's actions are not theirs. A viewer changes nothing: every POST but signing out is 403.
  app.addHook("onRequest", async (request, reply) => {
    const session = sessionOf(request);
    if (session?.actor.kind !== "staff") return;
    const path = request.url.split("?")[0];
    if (isPublic(path) || path === "/console/logout") return;
    const own = `/console/stores/${session.actor.storeId}`;
    if (path === "/console" || path === "/console/" || path === "/console/stores")
      return request.method === "GET" || request.method === "HEAD"
        ? redirectTo(reply, own)
        : refuse(reply, session);
    if (path !== own && !path.startsWith(`${own}/`))
      return sendPage(
        reply,
        page({ title: "Not found", session, body: html`<p>There is no such page.</p>` }),
        404,
      );
    if (request.method === "POST" && session.actor.role === "viewer") return refuse(reply, session);
  });

  // CSRF: every POST of a signed-in session carries the session's token (public forms have their own).
  app.addHook("preHandler", async (request, reply) => {
    if (request.method !== "POST" || isPublic(request.url.split("?")[0])) return;
    const session = sessionOf(request);
    if (!session) return;
    const sent = field(formOf(request), "_csrf");
    if (sent === "" || !safeEqualText(sent, session.csrf)) {
      return sendPage(
        reply,
        page({
          title: "Request refused",
          session,
          body: html`<p role="alert">This form was not sent from the console page it belongs to (missing or wrong security token). Nothing was changed. Go back, reload the page and try again.</p>`,
        }),
        403,
      );
    }
  });

  app.addHook("onSend", async (request, reply, payload) => {
    if (String(reply.getHeader("content-type") ?? "").startsWith("text/html"))
      reply.header("content-security-policy", CSP);
    reply.header("x-content-type-options", "nosniff");
    reply.header("x-frame-options", "DENY");
    reply.header("referrer-policy", "same-origin");
    if (!request.url.startsWith("/console/assets/")) reply.header("cache-control", "no-store");
    return payload;
  });

  app.setErrorHandler(async (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const session = sessionOf(request) ?? null;
    const show = (title: string, body: ReturnType<typeof html>, status: number) =>
      sendPage(reply, page({ title, session, body }), status);
    if (error instanceof PageNotFound) return show("Not found", html`<p>${error.message}</p>`, 404);
    if (error instanceof PageForbidden)
      return show("Not allowed", html`<p role="alert">${error.message}</p>`, 403);
    if (error instanceof FeatureUnavailable)
      return show("Not available yet", notAvailable(error.feature), 501);
    if (error instanceof AdminError) {
      if (error.status === 404) return show("Not found", html`<p>${error.message}</p>`, 404);
      if (error.status === 401 && session) {
        sessions.destroy(session.id);
        return redirectTo(reply, "/console/login");
      }
      return show(
        "Could not do that",
        errorSummary(`${error.message} (${error.code})`, error.details),
        error.status >= 400 && error.status < 500 ? error.status : 502,
      );
    }
    const fe = error as FastifyError;
    if (typeof fe?.statusCode === "number" && fe.statusCode >= 400 && fe.statusCode < 500) {
      const message =
        fe.code === "FST_ERR_CTP_BODY_TOO_LARGE"
          ? "The form is too large."
          : fe.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE"
            ? "Send forms as application/x-www-form-urlencoded."
            : "The request could not be read.";
      return show("Bad request", html`<p role="alert">${message}</p>`, fe.statusCode);
    }
    request.log.error({ err: error }, "console page failed");
    return show(
      "Something went wrong",
      html`<p role="alert">Something went wrong on our side. Try again.</p>`,
      500,
    );
  });

  app.setNotFoundHandler((request, reply) =>
    sendPage(
      reply,
      page({
        title: "Not found",
        session: sessionOf(request) ?? null,
        body: html`<p>There is no such page.</p>`,
      }),
      404,
    ),
  );

  // ---- Static files ----
  app.get("/assets/console.css", async (_request, reply) =>
    reply
      .type("text/css; charset=utf-8")
      .header("cache-control", "public, max-age=86400")
      .send(consoleCss.body),
  );
  app.get("/assets/console.js", async (_request, reply) =>
    reply
      .type("text/javascript; charset=utf-8")
      .header("cache-control", "public, max-age=86400")
      .send(consoleJs.body),
  );

  app.get("/assets/favicon.svg", async (_request, reply) =>
    reply.type("image/svg+xml").header("cache-control", "public, max-age=86400").send(consoleIcon.body),
  );

  // ---- Sign in and out ----
  const loginPage = (
    reply: FastifyReply,
    options: { next: string; error?: string; staffError?: string; email?: string; status?: number },
  ) => {
    const nonce = randomToken();
    reply.header(
      "set-cookie",
      serializeCookie(LOGIN_COOKIE, nonce, {
        path: "/console/login",
        maxAgeSeconds: 600,
        secure: isSecure(reply.request),
      }),
    );
    const body = html`<div class="login">
${staffSignInForm(nonce, options.next, { email: options.email ?? "", error: options.staffError })}
<section aria-labelledby="operator-sign-in">
<h2 id="operator-sign-in">Operator</h2>
${options.error ? html`<div class="flash flash-error" role="alert">${options.error}</div>` : ""}
<form method="post" action="/console/login" class="stack" aria-label="Sign in">
<input type="hidden" name="_csrf" value="${nonce}">
<input type="hidden" name="next" value="${options.next}">
<input type="text" name="username" value="admin" autocomplete="username" hidden>
<div class="field"><label for="admin-token">Admin token <span class="hint">(ADMIN_TOKEN; printed at first start)</span></label>
<input type="password" id="admin-token" name="token" required autocomplete="current-password"></div>
<div><button type="submit">Sign in with the admin token</button></div>
</form></section></div>`;
    return sendPage(
      reply,
      page({ title: "Sign in to Stockroom", session: null, body }),
      options.status ?? 200,
    );
  };

  const startSession = (request: FastifyRequest, reply: FastifyReply, actor: SessionActor, next: string) => {
    const session = sessions.create(actor);
    reply.header("set-cookie", [
      serializeCookie(SESSION_COOKIE, sessions.cookieValue(session), {
        path: "/console",
        maxAgeSeconds: Math.floor(SESSION_TTL_MS / 1000),
        secure: isSecure(request),
      }),
      serializeCookie(LOGIN_COOKIE, "", {
        path: "/console/login",
        maxAgeSeconds: 0,
        secure: isSecure(request),
      }),
    ]);
    return redirectTo(reply, next);
  };
  const { staffSignIn } = registerStaffAuth(app, { startSession, secure: isSecure });

  app.get("/login", async (request, reply) => {
    const next = safeNext(String((request.query as Record<string, unknown>)?.next ?? ""));
    if (sessionOf(request)) return redirectTo(reply, next);
    return loginPage(reply, { next });
  });

  app.post("/login", async (request, reply) => {
    const form = formOf(request);
    const next = safeNext(field(form, "next"));
    const nonce = parseCookies(request.headers.cookie)[LOGIN_COOKIE] ?? "";
    const sent = field(form, "_csrf");
    if (nonce === "" || sent === "" || !safeEqualText(sent, nonce))
      return loginPage(reply, {
        next,
        error: "The sign-in form expired or did not come from this console. Try again.",
        status: 403,
      });
    // The staff form names an email: a staff sign-in, with its own lockout per account.
    if (form.email !== undefined) {
      const outcome = await staffSignIn(request, reply, next);
      if ("error" in outcome)
        return loginPage(reply, {
          next,
          staffError: outcome.error,
          email: field(form, "email"),
          status: outcome.status,
        });
      return outcome;
    }
    const now = ctx.clock.now().getTime();
    const ip = request.ip;
    const failures = loginFailures.get(ip);
    if (failures && failures.resetAt <= now) loginFailures.delete(ip);
    if ((loginFailures.get(ip)?.count ?? 0) >= LOGIN_FAILURES_ALLOWED)
      return loginPage(reply, {
        next,
        error: "Too many failed sign-ins. Wait a few minutes and try again.",
        status: 429,
      });
    const token = field(form, "token");
    const check = token === "" ? null : await new AdminApi(app, token, ip).raw("GET", "/admin/stores");
    // The admin API's own throttle (wrong tokens sent to it directly from this address) refuses too.
    if (check?.status === 429)
      return loginPage(reply, {
        next,
        error: "Too many failed sign-ins. Wait a few minutes and try again.",
        status: 429,
      });
    if (check?.status !== 200) {
      const entry = loginFailures.get(ip) ?? { count: 0, resetAt: now + LOGIN_WINDOW_MS };
      entry.count += 1;
      loginFailures.set(ip, entry);
      return loginPage(reply, { next, error: "That is not the admin token.", status: 401 });
    }
    loginFailures.delete(ip);
    return startSession(request, reply, { kind: "operator", token }, next);
  });

  app.post("/logout", async (request, reply) => {
    const session = sessionOf(request);
    if (session) sessions.destroy(session.id);
    reply.header(
      "set-cookie",
      serializeCookie(SESSION_COOKIE, "", { path: "/console", maxAgeSeconds: 0, secure: isSecure(request) }),
    );
    return redirectTo(reply, "/console/login");
  });

  // ---- Pages (a session is guaranteed by the onRequest hook) ----
  // `needs`: what the user must be allowed (actor.ts); a page or action without it is 403, nothing changed.
  type Needs = Permission | "operator";
  const allowed = (request: FastifyRequest, needs?: Needs) => {
    if (needs === "operator") requireOperator(request);
    else if (needs) requirePermission(request, needs);
  };
  const get = (url: string, handler: (c: PageContext, p: Params) => Promise<unknown>, needs?: Needs) =>
    app.get(url, async (request, reply) => {
      allowed(request, needs);
      return handler(contextOf(request, reply, sessionOf(request)!), request.params as Params);
    });
  const post = (url: string, handler: (c: PageContext, p: Params) => Promise<unknown>, needs?: Needs) =>
    app.post(url, async (request, reply) => {
      allowed(request, needs);
      return handler(contextOf(request, reply, sessionOf(request)!), request.params as Params);
    });

  app.get("/", async (_request, reply) => redirectTo(reply, "/console/stores"));
  get("/stores", (c) => storesPage(c), "operator");
  post("/stores", (c) => createStoreAction(c), "operator");
  get("/stores/:id", (c, p) => storePage(c, p.id));
  get("/stores/:id/alert_rules", (c, p) => alertRulesPage(c, p.id));
  post("/stores/:id/alert_rules", (c, p) => saveAlertRulesAction(c, p.id), "stock");
  settingsRoutes(get, post);
  supplierRoutes(get, post);
  purchaseOrderDraftRoutes(get, post);
  purchaseOrderRoutes(get, post);
  receivingRoutes(get, post);
  stockRoutes(get, post);
  stockAdjustmentRoutes(get, post);
}

/** The Module's `publicRoutes`: everything under /console. */
export async function consoleRoutes(app: FastifyInstance): Promise<void> {
  await app.register(consolePlugin, { prefix: "/console" });
}
