import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  claimOwner,
  MIN_PASSWORD_LENGTH,
  ownerClaimStore,
  passwordLinkInfo,
  requestPasswordReset,
  type StaffRow,
  setPasswordWithLink,
  signIn,
} from "../domain/staff/index.ts";
import { getStore } from "../domain/stores/index.ts";
import { html, type SafeHtml } from "../html/template.ts";
import { field, formOf, sendPage } from "./context.ts";
import { page, storePath } from "./layout.ts";
import { parseCookies, randomToken, type SessionActor, safeEqualText, serializeCookie } from "./session.ts";

/**
 * Staff sign-in and the pages reached from a mailed link, none of which need a session:
 * - the staff half of the sign-in form (email and password; the account locks for 15 minutes after
 *   10 failures in a row), and the store choice when one email signs in to several stores;
 * - /console/password/:secret: set a password from an invitation or reset link, then signed in;
 * - /console/forgot: ask for a reset link (the same answer whether or not the address has an account);
 * - /console/welcome/:secret: a store made without an owner (a Shopify install) asks for the owner's
 *   email and sends the invitation.
 * These forms carry a double-submit token (cookie `stockroom_form`, Path=/console) as CSRF guard.
 */

export const FORM_COOKIE = "stockroom_form";
const CHOICE_TTL_MS = 5 * 60 * 1000;

export interface StaffAuthDeps {
  /** Starts a session for the actor (cookie set) and answers with a redirect to `next`. */
  startSession(request: FastifyRequest, reply: FastifyReply, actor: SessionActor, next: string): FastifyReply;
  secure(request: FastifyRequest): boolean;
}

export function staffActorOf(row: StaffRow): SessionActor {
  return {
    kind: "staff",
    staffId: row.id,
    storeId: row.store_id,
    email: row.email,
    role: row.role as Extract<SessionActor, { kind: "staff" }>["role"],
  };
}

/** A fresh double-submit token for a public form: set as a cookie, returned for the hidden field. */
function formNonce(request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
  // One per page: a reply that already set it (a page rendered after a refusal) keeps the first.
  const existing = (request as { formNonce?: string }).formNonce;
  if (existing) return existing;
  const nonce = randomToken();
  (request as { formNonce?: string }).formNonce = nonce;
  reply.header(
    "set-cookie",
    serializeCookie(FORM_COOKIE, nonce, { path: "/console", maxAgeSeconds: 1800, secure }),
  );
  return nonce;
}

function formNonceValid(request: FastifyRequest): boolean {
  const cookie = parseCookies(request.headers.cookie)[FORM_COOKIE] ?? "";
  const sent = field(formOf(request), "_csrf");
  return cookie !== "" && sent !== "" && safeEqualText(sent, cookie);
}

const expiredForm = html`<div class="flash flash-error" role="alert">This form expired or did not come from this console. Nothing was changed. Try again.</div>`;

function errorFor(id: string, message: string | null): SafeHtml | string {
  return message ? html`<p class="field-error" id="${id}-error">${message}</p>` : "";
}

function invalidAttrs(id: string, message: string | null): SafeHtml | string {
  return message ? html` aria-invalid="true" aria-describedby="${id}-error"` : "";
}

/** The staff half of the sign-in page. */
export function staffSignInForm(
  nonce: string,
  next: string,
  values: { email: string; error?: string },
): SafeHtml {
  return html`<section aria-labelledby="staff-sign-in">
<h2 id="staff-sign-in">Store staff</h2>
${values.error ? html`<div class="flash flash-error" role="alert">${values.error}</div>` : ""}
<form method="post" action="/console/login" class="stack" aria-labelledby="staff-sign-in">
<input type="hidden" name="_csrf" value="${nonce}">
<input type="hidden" name="next" value="${next}">
<div class="field"><label for="staff-email">Email</label>
<input type="email" id="staff-email" name="email" required maxlength="254" autocomplete="username" value="${values.email}"></div>
<div class="field"><label for="staff-password">Password</label>
<input type="password" id="staff-password" name="password" required autocomplete="current-password"></div>
<div><button type="submit">Sign in</button> <a href="/console/forgot">Forgot your password?</a></div>
</form></section>`;
}

export function registerStaffAuth(
  app: FastifyInstance,
  deps: StaffAuthDeps,
): {
  staffSignIn(
    request: FastifyRequest,
    reply: FastifyReply,
    next: string,
  ): Promise<FastifyReply | { error: string; status: number }>;
} {
  const { ctx } = app;
  /** One email matched several stores: the accounts to pick from, by a one-off id, for five minutes. */
  const choices = new Map<string, { accounts: StaffRow[]; next: string; expiresAt: number }>();

  const show = (reply: FastifyReply, title: string, body: SafeHtml, status = 200) =>
    sendPage(reply, page({ title, session: null, body }), status);

  // ---- Sign-in (the POST /console/login handler calls this when the form names an email) ----
  async function staffSignIn(request: FastifyRequest, reply: FastifyReply, next: string) {
    const form = formOf(request);
    const result = await signIn(ctx, field(form, "email"), String(form.password ?? ""));
    if (result.kind === "locked")
      return {
        error:
          "This account is locked after 10 failed sign-ins. Try again in 15 minutes, or reset your password.",
        status: 429,
      };
    if (result.kind === "wrong") return { error: "That email and password do not match.", status: 401 };
    if (result.accounts.length === 1) {
      const [account] = result.accounts;
      return deps.startSession(request, reply, staffActorOf(account), staffNext(next, account.store_id));
    }
    const now = ctx.clock.now().getTime();
    for (const [id, c] of choices) if (c.expiresAt <= now) choices.delete(id);
    const choiceId = randomToken();
    choices.set(choiceId, { accounts: result.accounts, next, expiresAt: now + CHOICE_TTL_MS });
    const nonce = formNonce(request, reply, deps.secure(request));
    const stores = await Promise.all(result.accounts.map((a) => getStore(ctx.db, a.store_id)));
    return show(
      reply,
      "Choose a store",
      html`<p>Your email works in several stores. Which one do you want to open?</p>
<ul class="choices">${result.accounts.map(
        (a, i) => html`<li><form method="post" action="/console/login/choose" class="inline">
<input type="hidden" name="_csrf" value="${nonce}">
<input type="hidden" name="choice" value="${choiceId}">
<input type="hidden" name="staff_id" value="${String(a.id)}">
<button type="submit">${stores[i].name}</button> <span class="muted">(${a.role})</span></form></li>`,
      )}</ul>`,
    );
  }

  app.post("/login/choose", async (request, reply) => {
    const form = formOf(request);
    const choice = choices.get(field(form, "choice"));
    const account = choice?.accounts.find((a) => String(a.id) === field(form, "staff_id"));
    if (!formNonceValid(request) || !choice || !account || choice.expiresAt <= ctx.clock.now().getTime())
      return show(
        reply,
        "Sign in again",
        html`${expiredForm}<p><a href="/console/login">Sign in</a></p>`,
        403,
      );
    choices.delete(field(form, "choice"));
    return deps.startSession(request, reply, staffActorOf(account), staffNext(choice.next, account.store_id));
  });

  // ---- Set a password from an invitation or reset link ----
  const passwordForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    token: string,
    info: { purpose: string; email: string; storeName: string },
    error: string | null,
    status: number,
  ) => {
    const nonce = formNonce(request, reply, deps.secure(request));
    const invitation = info.purpose === "invitation";
    return show(
      reply,
      invitation ? `Join ${info.storeName}` : "Choose a new password",
      html`<p>${invitation ? "Choose a password to finish joining" : "Choose a new password for"} <strong>${info.storeName}</strong> as <strong>${info.email}</strong>.</p>
<form method="post" action="/console/password/${token}" class="stack" aria-label="Choose a password">
<input type="hidden" name="_csrf" value="${nonce}">
<input type="text" name="username" value="${info.email}" autocomplete="username" hidden>
<div class="field"><label for="new-password">New password <span class="hint" id="new-password-hint">(at least ${String(MIN_PASSWORD_LENGTH)} characters)</span></label>
${errorFor("new-password", error)}
<input type="password" id="new-password" name="password" required minlength="${String(MIN_PASSWORD_LENGTH)}" autocomplete="new-password"${invalidAttrs("new-password", error)}></div>
<div><button type="submit">${invitation ? "Set password and sign in" : "Change password and sign in"}</button></div>
</form>`,
      status,
    );
  };

  const deadLink = (reply: FastifyReply) =>
    show(
      reply,
      "This link does not work",
      html`<p>This link is unknown, already used or expired (links work once, for 72 hours).</p>
<p>Ask the store's owner to send the invitation again, or <a href="/console/forgot">ask for a new password link</a>.</p>`,
      404,
    );

  app.get("/password/:token", async (request, reply) => {
    const token = (request.params as { token: string }).token;
    const info = await passwordLinkInfo(ctx, token);
    if (!info) return deadLink(reply);
    return passwordForm(request, reply, token, info, null, 200);
  });

  app.post("/password/:token", async (request, reply) => {
    const token = (request.params as { token: string }).token;
    const info = await passwordLinkInfo(ctx, token);
    if (!info) return deadLink(reply);
    if (!formNonceValid(request))
      return passwordForm(request, reply, token, info, "The form expired. Enter the password again.", 403);
    const password = String(formOf(request).password ?? "");
    if ([...password].length < MIN_PASSWORD_LENGTH)
      return passwordForm(
        request,
        reply,
        token,
        info,
        `Use at least ${MIN_PASSWORD_LENGTH} characters.`,
        422,
      );
    try {
      const staff = await setPasswordWithLink(ctx, token, password);
      return deps.startSession(request, reply, staffActorOf(staff), storePath(staff.store_id));
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "not_found") return deadLink(reply);
      if (code === "validation_failed")
        return passwordForm(request, reply, token, info, "Use between 10 and 200 characters.", 422);
      throw error;
    }
  });

  // ---- Forgotten password ----
  const forgotPage = (request: FastifyRequest, reply: FastifyReply, sent: boolean, status = 200) => {
    const nonce = formNonce(request, reply, deps.secure(request));
    return show(
      reply,
      "Reset your password",
      html`${sent ? html`<div class="flash flash-ok" role="status">If that address has an account, a link to choose a new password is on its way. It works once, for 72 hours.</div>` : ""}
<form method="post" action="/console/forgot" class="stack" aria-label="Reset your password">
<input type="hidden" name="_csrf" value="${nonce}">
<div class="field"><label for="forgot-email">Email</label>
<input type="email" id="forgot-email" name="email" required maxlength="254" autocomplete="username"></div>
<div><button type="submit">Send me a link</button> <a href="/console/login">Back to sign in</a></div>
</form>`,
      status,
    );
  };
  app.get("/forgot", async (request, reply) => forgotPage(request, reply, false));
  app.post("/forgot", async (request, reply) => {
    if (!formNonceValid(request)) return forgotPage(request, reply, false, 403);
    const email = field(formOf(request), "email");
    if (email !== "" && email.length <= 254) await requestPasswordReset(ctx, email);
    return forgotPage(request, reply, true);
  });

  // ---- A new store's owner (after a Shopify install) ----
  const welcomePage = (
    request: FastifyRequest,
    reply: FastifyReply,
    token: string,
    store: { name: string },
    error: string | null,
    status = 200,
  ) => {
    const nonce = formNonce(request, reply, deps.secure(request));
    return show(
      reply,
      `Welcome to Stockroom`,
      html`<p><strong>${store.name}</strong> is connected. Who runs it? We send the owner a link to choose a password; the owner then invites the rest of the staff.</p>
<form method="post" action="/console/welcome/${token}" class="stack" aria-label="The store's owner">
<input type="hidden" name="_csrf" value="${nonce}">
<div class="field"><label for="owner-email">Owner's email</label>
${errorFor("owner-email", error)}
<input type="email" id="owner-email" name="email" required maxlength="254" autocomplete="email"${invalidAttrs("owner-email", error)}></div>
<div><button type="submit">Send the invitation</button></div>
</form>`,
      status,
    );
  };
  const deadClaim = (reply: FastifyReply) =>
    show(
      reply,
      "This link does not work",
      html`<p>This link is unknown, already used or expired, or the store already has its owner. The owner signs in at <a href="/console/login">the sign-in page</a>.</p>`,
      404,
    );

  app.get("/welcome/:token", async (request, reply) => {
    const token = (request.params as { token: string }).token;
    const store = await ownerClaimStore(ctx, token);
    return store ? welcomePage(request, reply, token, store, null) : deadClaim(reply);
  });

  app.post("/welcome/:token", async (request, reply) => {
    const token = (request.params as { token: string }).token;
    const store = await ownerClaimStore(ctx, token);
    if (!store) return deadClaim(reply);
    if (!formNonceValid(request))
      return welcomePage(request, reply, token, store, "The form expired. Enter the email again.", 403);
    const email = field(formOf(request), "email");
    try {
      const owner = await claimOwner(ctx, token, email);
      return show(
        reply,
        "Invitation sent",
        html`<p role="status">We sent <strong>${owner.email}</strong> a link to choose a password for <strong>${store.name}</strong>. It works once, for 72 hours.</p>`,
      );
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "not_found") return deadClaim(reply);
      if (code === "validation_failed")
        return welcomePage(
          request,
          reply,
          token,
          store,
          "Enter an email address, like name@example.com.",
          422,
        );
      throw error;
    }
  });

  return { staffSignIn };
}

/** After a staff sign-in: the page asked for when it is in their store, else their store's overview. */
function staffNext(next: string, storeId: number): string {
  const own = storePath(storeId);
  return next === own || next.startsWith(`${own}/`) || next.startsWith(`${own}?`) ? next : own;
}
