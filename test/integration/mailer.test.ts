import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  classifySendError,
  createMailer,
  type MailMessage,
  smtpTransportOptions,
} from "../../src/mail/mailer.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";

// A stand-in PDF with binary bytes, so the attachment has to survive base64 both ways.
const PDF = Buffer.concat([
  Buffer.from("%PDF-1.7\n%"),
  Buffer.from([0xe2, 0xe3, 0xcf, 0xd3, 0x00, 0xff]),
  Buffer.from("\n%%EOF\n"),
]);

function message(overrides: Partial<MailMessage> = {}): MailMessage {
  return {
    from: "Brasserie Łódź <orders@brasserie.example>",
    to: ["sales@supplier.example", "backup@supplier.example"],
    cc: ["buyer@brasserie.example"],
    subject: "Purchase order PO-0042 from Brasserie",
    text: "Please find purchase order PO-0042 attached.",
    html: "<p>Please find purchase order <b>PO-0042</b> attached.</p>",
    attachments: [{ filename: "PO-0042.pdf", content: PDF, contentType: "application/pdf" }],
    ...overrides,
  };
}

/** The decoded body of the MIME part whose headers name `filename`. */
function attachmentBytes(raw: string, filename: string): Buffer {
  const part = raw.split(/\r\n--/).find((p) => p.includes(`filename=${filename}`));
  assert.ok(part, `no MIME part for ${filename}`);
  const [headers, ...body] = part.split("\r\n\r\n");
  assert.match(headers, /Content-Transfer-Encoding: base64/);
  return Buffer.from(body.join("\r\n\r\n").replace(/\s+/g, ""), "base64");
}

describe("mailer over SMTP", () => {
  let smtp: TestSmtp;
  before(async () => {
    smtp = await startSmtp();
  });
  after(() => smtp.close());

  it("delivers one message with the PDF to the to and cc recipients", async () => {
    const mailer = createMailer({ smtpUrl: smtp.url, outboxDir: join(tmpdir(), "unused-outbox") });
    try {
      const result = await mailer.send(message());
      assert.equal(result.transport, "smtp");
      assert.equal(result.path, undefined);
      assert.deepEqual(result.rejected, []);

      assert.equal(smtp.received.length, 1);
      const [mail] = smtp.received;
      assert.equal(mail.from, "orders@brasserie.example");
      assert.deepEqual([...mail.rcptTo].sort(), [
        "backup@supplier.example",
        "buyer@brasserie.example",
        "sales@supplier.example",
      ]);
      assert.match(mail.raw, /^Cc: buyer@brasserie\.example/m);
      assert.ok(mail.raw.includes(`Message-ID: ${result.messageId}`));
      assert.match(mail.raw, /Content-Type: application\/pdf/);
      assert.match(mail.raw, /filename=PO-0042\.pdf/);
      assert.match(mail.raw, /Content-Type: text\/html/);
      const pdf = attachmentBytes(mail.raw, "PO-0042.pdf");
      assert.equal(pdf.subarray(0, 4).toString("latin1"), "%PDF");
      assert.ok(pdf.equals(PDF));
    } finally {
      mailer.close();
    }
  });
});

describe("mailer without SMTP_URL", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "stockroom-outbox-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("writes an .eml file into the outbox, creating the folder", async () => {
    const outboxDir = join(dir, "outbox");
    const mailer = createMailer({ outboxDir });
    try {
      const result = await mailer.send(message());
      assert.equal(result.transport, "outbox");
      assert.ok(result.path);
      assert.equal(dirname(result.path), outboxDir);
      assert.match(basename(result.path), /^\d{8}T\d{9}Z-[0-9a-f]{8}\.eml$/);
      assert.deepEqual(await readdir(outboxDir), [basename(result.path)]);

      const raw = (await readFile(result.path)).toString("latin1");
      assert.match(raw, /^Subject: Purchase order PO-0042 from Brasserie\r$/m);
      assert.match(raw, /^To: sales@supplier\.example, backup@supplier\.example\r$/m);
      assert.ok(raw.includes(`Message-ID: ${result.messageId}`));
      assert.match(raw, /Content-Type: application\/pdf/);
      assert.ok(attachmentBytes(raw, "PO-0042.pdf").equals(PDF));
    } finally {
      mailer.close();
    }
  });
});

describe("classifySendError", () => {
  async function failedSend(url: string): Promise<unknown> {
    const mailer = createMailer({ smtpUrl: url, outboxDir: tmpdir() });
    try {
      await mailer.send(message());
    } catch (err) {
      return err;
    } finally {
      mailer.close();
    }
    assert.fail("send should have failed");
  }

  it("calls a 550 on RCPT permanent", async () => {
    const smtp = await startSmtp({ refuseWith: 550 });
    try {
      const err = await failedSend(smtp.url);
      assert.equal((err as { responseCode?: number }).responseCode, 550);
      assert.equal(classifySendError(err), "permanent");
      assert.equal(smtp.received.length, 0);
    } finally {
      await smtp.close();
    }
  });

  it("calls a 451 on RCPT transient", async () => {
    const smtp = await startSmtp({ refuseWith: 451 });
    try {
      const err = await failedSend(smtp.url);
      assert.equal((err as { responseCode?: number }).responseCode, 451);
      assert.equal(classifySendError(err), "transient");
    } finally {
      await smtp.close();
    }
  });

  it("calls a refused connection transient", async () => {
    const smtp = await startSmtp();
    const { url } = smtp;
    await smtp.close(); // nothing listens on that port any more
    assert.equal(classifySendError(await failedSend(url)), "transient");
  });

  it("classifies errors without a live server", () => {
    assert.equal(classifySendError({ responseCode: 535, code: "EAUTH" }), "permanent");
    assert.equal(classifySendError({ responseCode: 454, code: "EAUTH" }), "transient");
    assert.equal(classifySendError({ responseCode: 503 }), "transient");
    assert.equal(classifySendError({ responseCode: 421 }), "transient");
    assert.equal(classifySendError({ code: "EENVELOPE" }), "permanent"); // e.g. no recipients
    assert.equal(classifySendError({ code: "ETIMEDOUT" }), "transient");
    assert.equal(classifySendError(new Error("something odd")), "transient");
    assert.equal(classifySendError(undefined), "transient");
  });
});

describe("smtpTransportOptions", () => {
  it("reads host, port, TLS mode, credentials and flags from the URL", () => {
    const secure = smtpTransportOptions("smtps://us%40er:p%3Ass@mail.example:2465");
    assert.equal(secure.host, "mail.example");
    assert.equal(secure.port, 2465);
    assert.equal(secure.secure, true);
    assert.deepEqual(secure.auth, { user: "us@er", pass: "p:ss" });

    const local = smtpTransportOptions("smtp://[::1]:2525?ignore_tls=true&tls_reject_unauthorized=false");
    assert.equal(local.host, "::1");
    assert.equal(local.secure, false);
    assert.equal(local.ignoreTLS, true);
    assert.equal(local.auth, undefined);
    assert.deepEqual(local.tls, { rejectUnauthorized: false });

    assert.throws(() => smtpTransportOptions("http://mail.example"), /smtp:\/\/ or smtps:\/\//);
    assert.throws(() => smtpTransportOptions("not a url"), /not a valid URL/);
  });
});
