import type { AppContext } from "../context.ts";
import { createMailer, type Mailer } from "./mailer.ts";

const MAILER = {};

/**
 * The process's one mailer (SMTP when SMTP_URL is set, else .eml files in the outbox), shared by the API
 * and the worker and closed when the runtime closes.
 */
export function mailerFor(ctx: AppContext): Mailer {
  return ctx.resources.get(
    MAILER,
    () => createMailer({ smtpUrl: ctx.config.smtpUrl ?? undefined, outboxDir: ctx.config.outboxDir }),
    (mailer) => mailer.close(),
  );
}
