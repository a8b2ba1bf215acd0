import type { AppContext } from "../context.ts";
import { createMailer, type Mailer } from "./mailer.ts";

const mailers = new WeakMap<AppContext, Mailer>();

/** The process's mailer for a context: SMTP when SMTP_URL is set, else .eml files in the outbox. */
export function mailerFor(ctx: AppContext): Mailer {
  let mailer = mailers.get(ctx);
  if (!mailer) {
    mailer = createMailer({ smtpUrl: ctx.config.smtpUrl ?? undefined, outboxDir: ctx.config.outboxDir });
    mailers.set(ctx, mailer);
  }
  return mailer;
}
