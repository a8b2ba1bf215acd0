import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Clock } from "../clock.ts";
import type { StaffRole } from "../domain/staff/index.ts";

/**
 * Console sessions. The cookie holds only a random session id (32 bytes) with an HMAC-SHA256 signature
 * under a key made at process start; the session itself (the admin token, the CSRF token, one-shot
 * messages) lives in this process's memory. So a restart signs everyone out, nothing secret is ever in
 * the cookie, and a forged or altered cookie is rejected before any lookup.
 */

export interface Flash {
  kind: "ok" | "error";
  text: string;
}

export interface NewKeySecret {
  storeId: number;
  id: number;
  name: string;
  prefix: string;
  key: string;
}

/** Who signed in: the operator (admin token, every store) or a staff member (one store, one role). */
export type SessionActor =
  | { kind: "operator"; token: string }
  | { kind: "staff"; staffId: number; storeId: number; email: string; role: StaffRole };

export interface Session {
  id: string;
  /** The operator's admin token (in process memory only) or the staff member signed in. */
  actor: SessionActor;
  csrf: string;
  createdAt: number;
  expiresAt: number;
  flash: Flash[];
  /** A key secret to show once, on the next keys page of that store. */
  newKey: NewKeySecret | null;
  /** A webhook's signing secret to show once, on the next webhooks page of that store. */
  newWebhookSecret?: { storeId: number; webhookId: number; url: string; secret: string } | null;
}

export const SESSION_COOKIE = "stockroom_session";
export const LOGIN_COOKIE = "stockroom_login";
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;
const MAX_SESSIONS = 1000;

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

export function safeEqualText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  private readonly signingKey = randomBytes(32);

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = SESSION_TTL_MS,
  ) {}

  create(actor: SessionActor): Session {
    const now = this.clock.now().getTime();
    for (const [id, s] of this.sessions) if (s.expiresAt <= now) this.sessions.delete(id);
    // Oldest first (Map keeps insertion order): drop the oldest past the cap.
    while (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value as string;
      this.sessions.delete(oldest);
    }
    const session: Session = {
      id: randomToken(),
      actor,
      csrf: randomToken(),
      createdAt: now,
      expiresAt: now + this.ttlMs,
      flash: [],
      newKey: null,
    };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session a cookie value names, or null (missing, forged, expired, signed out). */
  fromCookie(value: string | undefined): Session | null {
    const id = value ? this.verify(value) : null;
    if (!id) return null;
    const session = this.sessions.get(id);
    if (!session) return null;
    if (session.expiresAt <= this.clock.now().getTime()) {
      this.sessions.delete(id);
      return null;
    }
    return session;
  }

  destroy(id: string): void {
    this.sessions.delete(id);
  }

  cookieValue(session: Session): string {
    return `${session.id}.${this.sign(session.id)}`;
  }

  sign(value: string): string {
    return createHmac("sha256", this.signingKey).update(value).digest("base64url");
  }

  private verify(cookie: string): string | null {
    const dot = cookie.lastIndexOf(".");
    if (dot <= 0) return null;
    const id = cookie.slice(0, dot);
    return safeEqualText(cookie.slice(dot + 1), this.sign(id)) ? id : null;
  }
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (!(name in out)) {
      try {
        out[name] = decodeURIComponent(value);
      } catch {
        out[name] = value;
      }
    }
  }
  return out;
}

export function serializeCookie(
  name: string,
  value: string,
  options: { path: string; maxAgeSeconds: number; secure: boolean },
): string {
  const parts = [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${options.path}`,
    `Max-Age=${options.maxAgeSeconds}`,
    "HttpOnly",
    "SameSite=Strict",
  ];
  if (options.secure) parts.push("Secure");
  return parts.join("; ");
}
