/**
 * The webhook sender against real HTTPS receivers on 127.0.0.1, with a throwaway CA made by openssl.
 * Covers the receiver contract (2xx + empty body only, no redirects, 10 s bound scaled down here) and the
 * connect-time address guard (the contract decisions on request handling details), including a name that resolves to loopback at delivery
 * time, which is what DNS rebinding looks like to the sender.
 */
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { TLSSocket } from "node:tls";
import {
  createWebhookSender,
  type WebhookSender,
  type WebhookSenderOptions,
} from "../../src/domain/webhooks/http-client.ts";
import { makePki, type Pki } from "../helpers/pki.ts";

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  servername: string | false | null;
}

interface Receiver {
  port: number;
  /** TCP connections accepted, whether or not a request followed. */
  connections: number;
  requests: Received[];
  /** Settles when the sender closes a connection before the receiver finished its response. */
  abandoned: Promise<void>;
  close(): Promise<void>;
}

type Respond = (req: IncomingMessage, res: ServerResponse) => void;

async function startReceiver(pki: Pki, respond: Respond): Promise<Receiver> {
  const server: Server = createServer({ key: pki.key, cert: pki.cert });
  let abandon = () => {};
  const receiver: Receiver = {
    port: 0,
    connections: 0,
    requests: [],
    abandoned: new Promise<void>((resolve) => {
      abandon = resolve;
    }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on("connection", () => receiver.connections++);
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    res.on("close", () => {
      if (!res.writableEnded) abandon();
    });
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      receiver.requests.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        servername: (req.socket as TLSSocket).servername,
      });
      respond(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.port = (server.address() as AddressInfo).port;
  return receiver;
}

const body = JSON.stringify({ id: "evt_1", event: "purchase_order.created", api_version: 2, data: {} });
const headers = {
  "User-Agent": "Stockroom-Webhooks/2",
  "X-Service-Event": "purchase_order.created",
  "X-Service-Event-Id": "evt_1",
  "X-Service-Signature": "sha256=00",
};

describe("webhook sender", () => {
  let pki: Pki;
  const cleanups: Array<() => Promise<void>> = [];

  before(() => {
    pki = makePki({ subjectAltNames: ["DNS:hooks.test", "DNS:localhost", "IP:127.0.0.1"] });
  });
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    pki.dispose();
  });

  async function receiver(respond: Respond): Promise<Receiver> {
    const r = await startReceiver(pki, respond);
    cleanups.push(() => r.close());
    return r;
  }
  function sender(options: Partial<WebhookSenderOptions> = {}): WebhookSender {
    const s = createWebhookSender({ allowPrivate: true, ca: pki.ca, timeoutMs: 2000, ...options });
    cleanups.push(() => s.close());
    return s;
  }
  const noContent: Respond = (_req, res) => {
    res.writeHead(204).end();
  };

  it("refuses a loopback URL when private addresses are not allowed, without connecting", async () => {
    const r = await receiver(noContent);
    const result = await sender({ allowPrivate: false }).send({
      url: `https://127.0.0.1:${r.port}/`,
      headers,
      body,
    });
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, null);
    assert.match(result.error ?? "", /127\.0\.0\.1 is not a public address \(loopback\)/);
    assert.equal(r.connections, 0);
  });

  it("refuses at connect a name that now resolves to loopback (DNS rebinding)", async () => {
    const r = await receiver(noContent);
    const lookups: string[] = [];
    const s = sender({
      allowPrivate: false,
      lookup: async (host) => {
        lookups.push(host);
        return ["127.0.0.1"];
      },
    });
    const result = await s.send({ url: `https://public.example:${r.port}/hook`, headers, body });
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, null);
    assert.match(
      result.error ?? "",
      /address not allowed: public\.example resolves to 127\.0\.0\.1.*loopback/,
    );
    assert.deepEqual(lookups, ["public.example"]);
    assert.equal(r.connections, 0);
  });

  it("refuses when any one of the resolved addresses is not public, before connecting anywhere", async () => {
    const s = sender({
      allowPrivate: false,
      lookup: async () => ["93.184.216.34", "::ffff:169.254.169.254"],
    });
    const result = await s.send({ url: "https://mixed.example/hook", headers, body });
    assert.equal(result.ok, false);
    assert.match(result.error ?? "", /169\.254\.169\.254.*link-local/);
    // No peer: the public address was never dialled (a wall-clock bound here broke on a busy machine).
    assert.equal(result.remoteAddress, undefined);
  });

  it("refuses http:// and the service's own hostname before connecting", async () => {
    const r = await receiver(noContent);
    const s = sender({ ownHostnames: ["api.stockroom.test"], lookup: async () => ["127.0.0.1"] });
    const plain = await s.send({ url: `http://127.0.0.1:${r.port}/`, headers, body });
    assert.equal(plain.ok, false);
    assert.match(plain.error ?? "", /https/);
    const own = await s.send({ url: `https://api.stockroom.test:${r.port}/`, headers, body });
    assert.equal(own.ok, false);
    assert.match(own.error ?? "", /this service/);
    assert.equal(r.connections, 0);
  });

  it("delivers with allowPrivate: 204 with an empty body is success", async () => {
    const r = await receiver(noContent);
    const result = await sender().send({ url: `https://127.0.0.1:${r.port}/hooks/in?x=1`, headers, body });
    assert.deepEqual(
      {
        ok: result.ok,
        statusCode: result.statusCode,
        error: result.error,
        remoteAddress: result.remoteAddress,
      },
      { ok: true, statusCode: 204, error: null, remoteAddress: "127.0.0.1" },
    );
    assert.ok(Number.isInteger(result.durationMs) && result.durationMs >= 0);
    assert.equal(r.requests.length, 1);
    const [req] = r.requests;
    assert.equal(req.method, "POST");
    assert.equal(req.url, "/hooks/in?x=1");
    assert.equal(req.body, body);
    assert.equal(req.headers["content-type"], "application/json");
    assert.equal(req.headers["user-agent"], "Stockroom-Webhooks/2");
    assert.equal(req.headers["x-service-event"], "purchase_order.created");
    assert.equal(req.headers["x-service-event-id"], "evt_1");
    assert.equal(req.headers["x-service-signature"], "sha256=00");
  });

  it("connects to the looked-up address but validates TLS against the name", async () => {
    const r = await receiver(noContent);
    const s = sender({ lookup: async () => ["127.0.0.1"] });
    const good = await s.send({ url: `https://hooks.test:${r.port}/`, headers, body });
    assert.equal(good.ok, true, good.error ?? "");
    assert.equal(r.requests[0].headers.host, `hooks.test:${r.port}`);
    assert.equal(r.requests[0].servername, "hooks.test");
    const wrongName = await s.send({ url: `https://other.test:${r.port}/`, headers, body });
    assert.equal(wrongName.ok, false);
    assert.match(wrongName.error ?? "", /altnames|does not match/i);
    assert.equal(r.requests.length, 1);
  });

  it("does not trust the test CA unless told to", async () => {
    const r = await receiver(noContent);
    const s = createWebhookSender({ allowPrivate: true, timeoutMs: 2000 });
    cleanups.push(() => s.close());
    const result = await s.send({ url: `https://127.0.0.1:${r.port}/`, headers, body });
    assert.equal(result.ok, false);
    assert.match(result.error ?? "", /certificate/i);
    assert.equal(r.requests.length, 0);
  });

  it("reuses kept-alive connections for consecutive deliveries", async () => {
    const r = await receiver(noContent);
    const s = sender();
    for (let i = 0; i < 20; i++) {
      const result = await s.send({ url: `https://127.0.0.1:${r.port}/`, headers, body });
      assert.equal(result.ok, true);
    }
    assert.equal(r.requests.length, 20);
    // undici notices a tick late that the very first connection is free again, so a second delivery
    // sent back to back opens one more; from then on the pool is reused.
    assert.ok(r.connections <= 2, `${r.connections} connections for 20 deliveries`);
  });

  it("counts a 2xx with a body as a failure", async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
    const result = await sender().send({ url: `https://127.0.0.1:${r.port}/`, headers, body });
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, 200);
    assert.equal(result.error, "response body must be empty; got 2 bytes");
  });

  it("counts any other 2xx with an empty body as success", async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(202).end();
    });
    const result = await sender().send({ url: `https://127.0.0.1:${r.port}/`, headers, body });
    assert.equal(result.ok, true);
    assert.equal(result.statusCode, 202);
  });

  it("does not follow a redirect", async () => {
    const target = await receiver(noContent);
    const r = await receiver((_req, res) => {
      res.writeHead(302, { location: `https://127.0.0.1:${target.port}/elsewhere` }).end();
    });
    const result = await sender().send({ url: `https://127.0.0.1:${r.port}/`, headers, body });
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, 302);
    assert.equal(result.error, "redirect not followed (302)");
    assert.equal(r.requests.length, 1);
    assert.equal(target.connections, 0);
    assert.equal(target.requests.length, 0);
  });

  it("reports a 500 with its status code", async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(500, { "content-type": "application/json" }).end('{"error":"boom"}');
    });
    const result = await sender().send({ url: `https://127.0.0.1:${r.port}/`, headers, body });
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, 500);
    assert.equal(result.error, "HTTP 500");
  });

  it("times out a receiver that never answers", async () => {
    const r = await receiver(() => {});
    const result = await sender({ timeoutMs: 300 }).send({
      url: `https://127.0.0.1:${r.port}/`,
      headers,
      body,
    });
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, null);
    assert.equal(result.error, "timeout");
    assert.ok(result.durationMs >= 250, `took ${result.durationMs} ms`);
    // The sender gave up and closed the connection (no upper wall-clock bound: a busy machine breaks it).
    await r.abandoned;
  });

  it("times out a receiver that sends headers and then stalls the body", async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(200);
      res.write("x");
    });
    const result = await sender({ timeoutMs: 300 }).send({
      url: `https://127.0.0.1:${r.port}/`,
      headers,
      body,
    });
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, 200);
    assert.equal(result.error, "timeout");
    assert.ok(result.durationMs >= 250, `took ${result.durationMs} ms`);
    await r.abandoned;
  });

  it("cuts off a huge response body", async () => {
    const total = 64 * 1024 * 1024;
    let finished = false;
    const r = await receiver((_req, res) => {
      const chunk = Buffer.alloc(16 * 1024, 0x61);
      let sent = 0;
      const pump = () => {
        while (sent < total) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end(() => {
          finished = true;
        });
      };
      res.writeHead(200, { "content-type": "text/plain" });
      pump();
    });
    const result = await sender({ maxResponseBytes: 64 * 1024 }).send({
      url: `https://127.0.0.1:${r.port}/`,
      headers,
      body,
    });
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, 200);
    assert.equal(result.error, "response body must be empty; got more than 65536 bytes (cut off)");
    assert.equal(finished, false);
  });
});
