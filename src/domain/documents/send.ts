import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { html, lines } from "../../html/template.ts";
import type { ClaimedJob } from "../../jobs/queue.ts";
import { type JobHandler, PermanentJobError } from "../../jobs/worker.ts";
import { classifySendError } from "../../mail/mailer.ts";
import { mailerFor } from "../../mail/service-mailer.ts";
import { DetailCollector } from "../errors.ts";
import {
  type Actor,
  addHistory,
  markSent,
  type PurchaseOrder,
  type Recipients,
  type StoreInfo,
} from "../purchase-orders/index.ts";
import { findSupplier } from "../suppliers/index.ts";
import { shipToLines } from "./address-format.ts";
import { formatMoney } from "./pdf-text.ts";
import { purchaseOrderPdf } from "./rendering.ts";

export const SEND_EMAIL_JOB = "purchase_order.send_email";
/** Mail retries: 30 s, 2 min, 10 min, 30 min, then the send is given up and recorded in the history. */
const SEND_RETRY_MS = [30_000, 120_000, 600_000, 1_800_000];

export interface SendInput {
  to?: string[];
  cc?: string[];
  subject?: string;
  message?: string;
}

interface SendPayload {
  store_id: number;
  order_id: number;
  to: string[];
  cc: string[];
  subject: string | null;
  message: string | null;
  by: string;
  via: string | null;
}

/**
 * POST …/send: records the send (a draft becomes ordered, as mark_ordered does; an open order just
 * gets a new sent_at) and enqueues the email in the same transaction. The email itself goes out after
 * commit, from the job queue, with retries, so a slow or failing mail server never holds the request.
 */
export async function sendPurchaseOrder(
  ctx: AppContext,
  trx: Db,
  store: StoreInfo,
  actor: Actor,
  id: number,
  input: SendInput,
): Promise<PurchaseOrder> {
  let recipients: Recipients = { to: [], cc: [] };
  const presented = await markSent(ctx, trx, store, actor, id, async (order) => {
    recipients = await recipientsOf(trx, store.id, order.supplier_id, input);
    return recipients;
  });
  const { to, cc } = recipients;
  const payload: SendPayload = {
    store_id: store.id,
    order_id: id,
    to,
    cc,
    subject: input.subject ?? null,
    message: input.message ?? null,
    by: actor.by,
    via: actor.via,
  };
  await ctx.jobs.enqueue(
    trx,
    SEND_EMAIL_JOB,
    { ...payload },
    { storeId: store.id, maxAttempts: SEND_RETRY_MS.length + 1 },
  );
  return presented;
}

/** The given recipients, else the supplier's email and cc; 422 on `to` when there is none. */
async function recipientsOf(
  trx: Db,
  storeId: number,
  supplierId: number,
  input: SendInput,
): Promise<Recipients> {
  const supplier = await findSupplier(trx, storeId, supplierId);
  if (!supplier) throw new Error(`supplier ${supplierId} of a purchase order is not its store's`);
  const to = input.to ?? (supplier.email ? [supplier.email] : []);
  const cc = input.cc ?? supplier.email_cc ?? [];
  const problems = new DetailCollector();
  if (to.length === 0)
    problems.add("to", "required", "has no recipient: the supplier has no email; send `to`");
  problems.throwIfAny();
  return { to, cc };
}

export const sendEmailJob: JobHandler = {
  type: SEND_EMAIL_JOB,
  retryDelayMs: (attempts) => SEND_RETRY_MS[attempts - 1] ?? null,
  async run(ctx, job) {
    const p = job.payload as unknown as SendPayload;
    // Rendered on the PDF threads like the API's, waiting its turn rather than refused.
    const { document, pdf } = await purchaseOrderPdf(ctx, p.store_id, p.order_id, {
      receivingCopy: false,
      refusable: false,
    });
    const owner = await ctx.db
      .selectFrom("stores")
      .select(["owner_email"])
      .where("id", "=", p.store_id)
      .executeTakeFirst();
    const subject = p.subject ?? `Purchase order ${document.number} from ${document.store.name}`;
    const greeting = document.supplier.contact_name ? `Hello ${document.supplier.contact_name},` : "Hello,";
    const intro = `Please find attached purchase order ${document.number} from ${document.store.name}.`;
    const details = [
      `Total: ${formatMoney(document.totals.total, document.totals.currency)}`,
      document.expected_at ? `Expected: ${document.expected_at}` : null,
    ].filter((l): l is string => l !== null);
    // The address in its country's format, as the PDF prints it.
    const shipTo = shipToLines(document);
    const text = [
      greeting,
      "",
      intro,
      ...(p.message ? ["", p.message] : []),
      "",
      ...details,
      "",
      "Ship to:",
      ...shipTo,
      "",
      document.store.name,
    ].join("\n");
    const body = html`<p>${greeting}</p>
<p>${intro}</p>
${p.message ? html`<p>${lines(p.message.split("\n"))}</p>` : ""}
<p>${lines(details)}</p>
<p>Ship to:<br>${lines(shipTo)}</p>
<p>${document.store.name}</p>`;
    try {
      await mailerFor(ctx).send({
        from: ctx.config.mailFrom,
        to: p.to,
        cc: p.cc,
        replyTo: owner?.owner_email ?? undefined,
        subject,
        text,
        html: body.value,
        attachments: [{ filename: `${document.number}.pdf`, content: pdf, contentType: "application/pdf" }],
      });
    } catch (error) {
      if (classifySendError(error) === "permanent")
        throw new PermanentJobError(error instanceof Error ? error.message : String(error));
      throw error;
    }
  },
  async onFinalFailure(ctx: AppContext, job: ClaimedJob, error: string, trx: Db) {
    const p = job.payload as unknown as SendPayload;
    await addHistory(trx, {
      storeId: p.store_id,
      orderId: p.order_id,
      type: "send_failed",
      by: "system",
      via: null,
      data: { to: p.to, cc: p.cc, error, attempts: job.attempts },
      at: ctx.clock.now(),
    });
  },
};
