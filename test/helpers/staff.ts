import type { ReceivedMail } from "./smtp.ts";

/** The mails sent to one address, oldest first. */
export function mailsTo(received: readonly ReceivedMail[], email: string): ReceivedMail[] {
  return received.filter((m) => m.rcptTo.map((r) => r.toLowerCase()).includes(email.toLowerCase()));
}

/**
 * The path of the one-time link in a staff mail (`/console/password/<secret>`), read from the text
 * part with quoted-printable soft line breaks joined.
 */
export function staffLinkPath(mail: ReceivedMail): string {
  const text = mail.raw.replace(/=\r?\n/g, "").replace(/=3D/gi, "=");
  const match = /\/console\/password\/[A-Za-z0-9_-]{20,100}/.exec(text);
  if (!match) throw new Error(`no staff link in the mail:\n${mail.raw.slice(0, 2000)}`);
  return match[0];
}

/** The subject line of a mail. */
export function subjectOf(mail: ReceivedMail): string {
  return /^Subject: (.*)$/m.exec(mail.raw)?.[1] ?? "";
}
