import assert from "node:assert/strict";
import type { TestApp } from "./app.ts";
import { expectStatus } from "./assertions.ts";
import { ConsoleAgent, hiddenValue } from "./console-agent.ts";
import type { ReceivedMail, TestSmtp } from "./smtp.ts";

/** The mails sent to one address, oldest first. */
export function mailsTo(received: readonly ReceivedMail[], email: string): ReceivedMail[] {
  return received.filter((m) => m.rcptTo.map((r) => r.toLowerCase()).includes(email.toLowerCase()));
}

/** A mail's raw text with its quoted-printable soft line breaks joined and `=3D` undone, so links read whole. */
export function unfoldedMailText(raw: string): string {
  return raw.replace(/=\r?\n/g, "").replace(/=3D/gi, "=");
}

/** The path of the one-time link in a staff mail (`/console/password/<secret>`), read from its text part. */
export function staffLinkPath(mail: ReceivedMail): string {
  const text = unfoldedMailText(mail.raw);
  const match = /\/console\/password\/[A-Za-z0-9_-]{20,100}/.exec(text);
  if (!match) throw new Error(`no staff link in the mail:\n${mail.raw.slice(0, 2000)}`);
  return match[0];
}

/** The subject line of a mail. */
export function subjectOf(mail: ReceivedMail): string {
  return /^Subject: (.*)$/m.exec(mail.raw)?.[1] ?? "";
}

/**
 * A staff member who joined through the console as a person does: invited through the admin API, the
 * mailed link followed and a password set. Returns their signed-in console agent.
 */
export async function joinStaff(
  t: TestApp,
  smtp: TestSmtp,
  storeId: number,
  email: string,
  role: string,
  password = "a long enough password",
): Promise<ConsoleAgent> {
  expectStatus(await t.admin.post(`/admin/stores/${storeId}/staff`, { email, role }), 201);
  await t.drain();
  const mails = mailsTo(smtp.received, email);
  assert.ok(mails.length > 0, `no mail to ${email}`);
  const link = staffLinkPath(mails[mails.length - 1]);
  const agent = new ConsoleAgent(t);
  const form = await agent.get(link);
  const done = await agent.post(link, { _csrf: hiddenValue(form.body, "_csrf"), password });
  assert.equal(done.status, 303);
  return agent;
}
