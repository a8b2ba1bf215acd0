/** `webhooks.disabled_email`: the one email to the store owner when an endpoint was disabled. */
import type { AppContext } from "../../context.ts";
import { html } from "../../html/template.ts";
import { PermanentJobError } from "../../jobs/worker.ts";
import { classifySendError } from "../../mail/mailer.ts";
import { mailerFor } from "../../mail/service-mailer.ts";

export interface DisabledEndpoint {
  id: number;
  url: string;
  store_name: string;
  /** ISO time it was disabled. */
  when: string;
  reason: string;
}

export async function runDisabledEmail(ctx: AppContext, webhookId: number): Promise<void> {
  const row = await ctx.db
    .selectFrom("webhooks")
    .innerJoin("stores", "stores.id", "webhooks.store_id")
    .select([
      "webhooks.id",
      "webhooks.url",
      "webhooks.disabled_at",
      "webhooks.disabled_reason",
      "stores.name as store_name",
      "stores.owner_email",
    ])
    .where("webhooks.id", "=", webhookId)
    .executeTakeFirst();
  if (!row?.owner_email) return; // deleted meanwhile, or nobody to tell
  const { text, html } = disabledEmailBody({
    id: row.id,
    url: row.url,
    store_name: row.store_name,
    when: row.disabled_at?.toISOString() ?? ctx.clock.now().toISOString(),
    reason: row.disabled_reason ?? "deliveries kept failing",
  });
  try {
    await mailerFor(ctx).send({
      from: ctx.config.mailFrom,
      to: [row.owner_email],
      subject: `Webhook endpoint disabled: ${row.url}`,
      text,
      html,
    });
  } catch (error) {
    if (classifySendError(error) === "permanent") {
      throw new PermanentJobError(error instanceof Error ? error.message : String(error));
    }
    throw error;
  }
}

/** The email's text and HTML parts. */
export function disabledEmailBody(endpoint: DisabledEndpoint): { text: string; html: string } {
  const { id, url, store_name, when, reason } = endpoint;
  const text = [
    `Webhook endpoint ${id} of ${store_name} was disabled at ${when}.`,
    "",
    `URL: ${url}`,
    `Reason: ${reason}`,
    "",
    "Events still happen and are kept for 30 days, but nothing is sent to this endpoint until it is",
    `re-enabled: PATCH /v2/webhooks/${id} with {"status": "active"}. After fixing the receiver,`,
    `POST /v2/webhooks/${id}/redeliver with {"since": "<time>"} sends what it missed.`,
  ].join("\n");
  const body = html`<p>Webhook endpoint ${id} of ${store_name} was disabled at ${when}.</p>
<p>URL: <code>${url}</code><br>Reason: ${reason}</p>
<p>Events still happen and are kept for 30 days, but nothing is sent to this endpoint until it is
re-enabled with <code>PATCH /v2/webhooks/${id}</code> and <code>{"status": "active"}</code>.
After fixing the receiver, <code>POST /v2/webhooks/${id}/redeliver</code> with
<code>{"since": "&lt;time&gt;"}</code> sends what it missed.</p>`;
  return { text, html: body.value };
}
