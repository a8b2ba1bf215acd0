import { randomBytes } from "node:crypto";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { html } from "../../html/template.ts";
import { type JobHandler, PermanentJobError } from "../../jobs/worker.ts";
import { classifySendError } from "../../mail/mailer.ts";
import { mailerFor } from "../../mail/service-mailer.ts";
import { hashSecret } from "../secrets.ts";
import { getStore } from "../stores/index.ts";
import { findStaffById, replaceLink } from "./repository.ts";

/**
 * The one-time links a staff member gets by mail: an invitation (set a first password) or a password
 * reset. The link's secret is made by the mail job itself, just before sending, and only its hash is
 * stored, so the secret exists nowhere but in the mail; a retried send makes a new link and the old one
 * stops working. Links last 72 hours and are used once.
 */
export const LINK_MAIL_JOB = "staff.link_mail";
export const LINK_TTL_MS = 72 * 60 * 60 * 1000;
export type LinkPurpose = "invitation" | "reset";

const RETRY_MS = [30_000, 120_000, 600_000, 3_600_000];

/** Queues the mail in the caller's transaction (one pending per member and purpose). */
export async function queueLinkMail(ctx: AppContext, trx: Db, staffId: number, purpose: LinkPurpose) {
  await ctx.jobs.enqueue(
    trx,
    LINK_MAIL_JOB,
    { staff_id: staffId, purpose },
    { dedupeKey: `staff-link:${staffId}:${purpose}`, maxAttempts: RETRY_MS.length + 1 },
  );
}

/** Where links point: PUBLIC_URL, else the Shopify app URL, else the address the service listens on. */
export function consoleBaseUrl(config: AppContext["config"]): string {
  if (config.publicUrl) return config.publicUrl;
  if (config.shopify.appUrl) return config.shopify.appUrl.replace(/\/+$/, "");
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  return `http://${host.includes(":") ? `[${host}]` : host}:${config.port}`;
}

export function newLinkSecret(): { token: string; hash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, hash: hashSecret(token) };
}

export const linkMailJob: JobHandler = {
  type: LINK_MAIL_JOB,
  retryDelayMs: (attempts) => RETRY_MS[attempts - 1] ?? null,
  async run(ctx, job) {
    const { staff_id: staffId, purpose } = job.payload as { staff_id: number; purpose: LinkPurpose };
    const prepared = await ctx.db.transaction().execute(async (trx) => {
      const staff = await findStaffById(trx, staffId);
      // Disabled since, or already joined (an invitation), or never joined (a reset): nothing to send.
      if (!staff || staff.disabled_at !== null) return null;
      if ((purpose === "invitation") !== (staff.password_hash === null)) return null;
      const store = await getStore(trx, staff.store_id);
      const now = ctx.clock.now();
      const { token, hash } = newLinkSecret();
      await replaceLink(trx, {
        store_id: staff.store_id,
        staff_id: staff.id,
        purpose,
        token_hash: hash,
        expires_at: new Date(now.getTime() + LINK_TTL_MS),
        created_at: now,
      });
      return { email: staff.email, storeName: store.name, token };
    });
    if (!prepared) return;
    const link = `${consoleBaseUrl(ctx.config)}/console/password/${prepared.token}`;
    const invitation = purpose === "invitation";
    const subject = invitation
      ? `You are invited to ${prepared.storeName} on Stockroom`
      : `Reset your Stockroom password for ${prepared.storeName}`;
    const intro = invitation
      ? `You have been invited to work on ${prepared.storeName} in Stockroom. Choose a password to sign in:`
      : `Someone asked to reset your Stockroom password for ${prepared.storeName}. Choose a new password here:`;
    const outro = invitation
      ? "The link works once, for 72 hours."
      : "The link works once, for 72 hours. If you did not ask for this, ignore this mail; your password stays as it is.";
    try {
      await mailerFor(ctx).send({
        from: ctx.config.mailFrom,
        to: [prepared.email],
        subject,
        text: [intro, "", link, "", outro].join("\n"),
        html: html`<p>${intro}</p><p><a href="${link}">${link}</a></p><p>${outro}</p>`.value,
      });
    } catch (error) {
      if (classifySendError(error) === "permanent")
        throw new PermanentJobError(error instanceof Error ? error.message : String(error));
      throw error;
    }
  },
};
