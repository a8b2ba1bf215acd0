import { randomBytes } from "node:crypto";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SendMailOptions, SMTPTransportOptions, Transporter } from "nodemailer";

/**
 * Outgoing mail. With an SMTP URL messages go to that server; without one each message is written
 * as an RFC 5322 `.eml` file into an outbox folder (development, demos, tests), built by the same
 * MIME composer so the file is exactly what SMTP would have carried.
 *
 * Sending happens from the job queue, which retries: classifySendError tells it whether a failure
 * is worth retrying.
 */

export interface MailAttachment {
  readonly filename: string;
  readonly content: Buffer;
  readonly contentType: string;
}

export interface MailMessage {
  readonly from: string;
  readonly to: readonly string[];
  readonly cc?: readonly string[];
  /** Where replies go when that isn't the From address (e.g. the store owner). */
  readonly replyTo?: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly attachments?: readonly MailAttachment[];
}

export interface SendResult {
  readonly messageId: string;
  readonly transport: "smtp" | "outbox";
  /** The written `.eml` file (outbox only). */
  readonly path?: string;
  /** Recipients the server accepted / refused; a send succeeds when at least one was accepted. */
  readonly accepted?: readonly string[];
  readonly rejected?: readonly string[];
}

export interface Mailer {
  send(message: MailMessage): Promise<SendResult>;
  close(): void;
}

export interface MailerOptions {
  /** `smtp://` or `smtps://` URL (see smtpTransportOptions); absent writes to the outbox. */
  readonly smtpUrl?: string;
  readonly outboxDir: string;
}

export function createMailer(options: MailerOptions): Mailer {
  return options.smtpUrl ? smtpMailer(options.smtpUrl) : outboxMailer(options.outboxDir);
}

/**
 * nodemailer loaded and the transport made at the first send: a process that sends no mail (most
 * test files, a server whose stores send none yet) does not load the package (~0.1 s of CPU).
 */
function lazyTransport<T extends Transporter>(make: (mailer: typeof import("nodemailer")["default"]) => T) {
  let transport: Promise<T> | undefined;
  return {
    get: () => {
      transport ??= import("nodemailer").then((m) => make(m.default));
      return transport;
    },
    close: () => void transport?.then((t) => t.close()),
  };
}

function toSendMailOptions(message: MailMessage): SendMailOptions {
  return {
    from: message.from,
    to: [...message.to],
    cc: message.cc && message.cc.length > 0 ? [...message.cc] : undefined,
    replyTo: message.replyTo,
    subject: message.subject,
    text: message.text,
    html: message.html,
    attachments: message.attachments?.map((a) => ({
      filename: a.filename,
      content: a.content,
      contentType: a.contentType,
    })),
  };
}

// --- SMTP --------------------------------------------------------------------------------------

function smtpMailer(smtpUrl: string): Mailer {
  // Parsed here, so a bad SMTP_URL is refused at start, not at the first send.
  const options = smtpTransportOptions(smtpUrl);
  const transport = lazyTransport((nodemailer) => nodemailer.createTransport(options));
  return {
    async send(message) {
      const info = await (await transport.get()).sendMail(toSendMailOptions(message));
      return {
        messageId: info.messageId,
        transport: "smtp",
        accepted: info.accepted.map(String),
        rejected: info.rejected.map(String),
      };
    },
    close: transport.close,
  };
}

// Bounded waits so a dead or stalled server fails the job (and it is retried) instead of holding a
// worker for nodemailer's default of minutes.
const TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 60_000 };

/**
 * Parses SMTP_URL: `smtp://[user:pass@]host[:port]` (plain, upgraded with STARTTLS when the server
 * offers it) or `smtps://…` (TLS from the first byte, port 465 by default). Query flags, for local
 * and test servers:
 * - `ignore_tls=true`: never STARTTLS, even if offered;
 * - `require_tls=true`: refuse to send unless STARTTLS succeeds;
 * - `tls_reject_unauthorized=false`: accept a self-signed certificate.
 * Credentials are percent-decoded, so a password may contain any character.
 */
export function smtpTransportOptions(smtpUrl: string): SMTPTransportOptions {
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    throw new Error("SMTP_URL is not a valid URL");
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") {
    throw new Error(`SMTP_URL must start with smtp:// or smtps://, not ${url.protocol}//`);
  }
  if (!url.hostname) throw new Error("SMTP_URL has no host");
  const flag = (name: string): boolean | undefined => {
    const value = url.searchParams.get(name);
    return value === null ? undefined : value === "true" || value === "1";
  };
  const rejectUnauthorized = flag("tls_reject_unauthorized");
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, "$1"), // IPv6 literals come bracketed
    port: url.port ? Number(url.port) : undefined,
    secure: url.protocol === "smtps:",
    auth: url.username
      ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
      : undefined,
    ignoreTLS: flag("ignore_tls"),
    requireTLS: flag("require_tls"),
    tls: rejectUnauthorized === false ? { rejectUnauthorized: false } : undefined,
    ...TIMEOUTS,
  };
}

// --- Outbox ------------------------------------------------------------------------------------

function outboxMailer(outboxDir: string): Mailer {
  // Builds the complete MIME message (CRLF line ends, as on the wire) without sending it.
  const composer = lazyTransport((nodemailer) =>
    nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" }),
  );
  return {
    async send(message) {
      const info = await (await composer.get()).sendMail(toSendMailOptions(message));
      await mkdir(outboxDir, { recursive: true });
      const path = join(outboxDir, outboxFileName(new Date()));
      // Written under a temporary name and renamed, so a reader never sees half a message.
      const partial = `${path}.partial`;
      await writeFile(partial, info.message as Buffer);
      await rename(partial, path);
      return { messageId: info.messageId, transport: "outbox", path };
    },
    close: composer.close,
  };
}

/** `<timestamp>-<random>.eml`; the timestamp sorts lexically, colons are left out for portability. */
function outboxFileName(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(".", "");
  return `${stamp}-${randomBytes(4).toString("hex")}.eml`;
}

// --- Failure classification --------------------------------------------------------------------

export type SendFailureKind = "transient" | "permanent";

// Errors that say nothing about the message itself: the network, the server being away, or a full
// disk for the outbox. Trying the same message later can succeed.
const TRANSIENT_CODES = new Set([
  "ECONNECTION",
  "ETIMEDOUT",
  "ESOCKET",
  "EDNS",
  "ETLS",
  "EPROXY",
  "ECONNREFUSED",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "ENOSPC",
  "EMFILE",
  "EBUSY",
]);

/**
 * Whether a failed send is worth retrying.
 * - An SMTP reply decides first (RFC 5321): 4xx is transient (greylisting, mailbox busy, server
 *   overloaded), 5xx permanent (no such mailbox, refused, authentication failed). 503 "bad
 *   sequence" is transient: it describes the session, not the message.
 * - Without a reply: connection, DNS, TLS and timeout errors are transient; configuration and
 *   message errors (no recipients, bad address, no credentials) are permanent.
 * - Anything unrecognised is transient: the queue's retries are bounded, so at worst it tries again.
 */
export function classifySendError(error: unknown): SendFailureKind {
  const err = (typeof error === "object" && error !== null ? error : {}) as {
    code?: unknown;
    responseCode?: unknown;
  };
  if (typeof err.responseCode === "number") {
    const status = err.responseCode;
    if (status >= 500 && status < 600 && status !== 503) return "permanent";
    return "transient";
  }
  const code = typeof err.code === "string" ? err.code : "";
  if (TRANSIENT_CODES.has(code)) return "transient";
  if (["EENVELOPE", "EMESSAGE", "EAUTH", "ENOAUTH", "ECONFIG", "EREQUIRETLS"].includes(code))
    return "permanent";
  return "transient";
}
