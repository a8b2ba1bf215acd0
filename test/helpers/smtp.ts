import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/** One message as the server took it: envelope and the raw bytes (latin1, so binary parts survive). */
export interface ReceivedMail {
  readonly from: string;
  readonly rcptTo: string[];
  readonly raw: string;
}

export interface TestSmtp {
  readonly url: string;
  readonly received: ReceivedMail[];
  /** Set `refuseWith` to a reply code (550 for good, 451 for now) to refuse every RCPT TO; 0 accepts. */
  readonly state: { refuseWith: number };
  close(): Promise<void>;
}

/** A real SMTP server on a free loopback port (no TLS, no auth), recording what it receives. */
export async function startSmtp(options: { refuseWith?: number } = {}): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const state = { refuseWith: options.refuseWith ?? 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (!state.refuseWith) return callback();
      const message = state.refuseWith >= 500 ? "Mailbox unavailable" : "Try again later";
      callback(Object.assign(new Error(message), { responseCode: state.refuseWith }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("latin1"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
