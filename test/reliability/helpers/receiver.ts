/**
 * An HTTPS webhook receiver for the reliability tests. It records every request it gets (event id,
 * delivery id, webhook id, arrival time) and answers each path as told: 204 (success), any status with
 * a body, a redirect, a hang (never answers), or a huge body streamed until the sender gives up.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { Pki } from "../../helpers/pki.ts";

export interface Received {
  path: string;
  eventId: string;
  deliveryId: string;
  webhookId: string;
  event: string;
  at: number;
  bytes: number;
}

export type Behaviour =
  | { kind: "ok" }
  | { kind: "status"; status: number; body?: string; headers?: Record<string, string> }
  | { kind: "hang" }
  /** Answers 200 and streams `bytes` bytes (or until the sender closes the connection). */
  | { kind: "huge"; bytes: number }
  /** Waits `ms`, then answers 204. */
  | { kind: "slow"; ms: number };

export interface Receiver {
  port: number;
  /** Base URL (`https://localhost:<port>`). */
  url: string;
  requests: Received[];
  /** Bytes the huge-body answers managed to write before the sender hung up. */
  hugeBytesWritten: number;
  /** Requests that were answered by a hang, still open. */
  readonly hanging: number;
  behave(path: string, behaviour: Behaviour): void;
  at(path: string): Received[];
  close(): Promise<void>;
}

export async function startReceiver(pki: Pki): Promise<Receiver> {
  const server: Server = createServer({ key: pki.key, cert: pki.cert });
  const behaviours = new Map<string, Behaviour>();
  const hangingResponses = new Set<ServerResponse>();
  const receiver: Receiver = {
    port: 0,
    url: "",
    requests: [],
    hugeBytesWritten: 0,
    get hanging() {
      return hangingResponses.size;
    },
    behave: (p, b) => behaviours.set(p, b),
    at: (p) => receiver.requests.filter((r) => r.path === p),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hangingResponses) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    let bytes = 0;
    req.on("data", (c: Buffer) => {
      bytes += c.length;
    });
    req.on("end", () => {
      const p = (req.url ?? "").split("?")[0];
      const header = (name: string) => String(req.headers[name] ?? "");
      receiver.requests.push({
        path: p,
        eventId: header("x-service-event-id"),
        deliveryId: header("x-service-delivery-id"),
        webhookId: header("x-service-webhook-id"),
        event: header("x-service-event"),
        at: Date.now(),
        bytes,
      });
      const behaviour = behaviours.get(p) ?? { kind: "ok" };
      switch (behaviour.kind) {
        case "ok":
          res.writeHead(204);
          res.end();
          return;
        case "status":
          res.writeHead(behaviour.status, behaviour.headers ?? {});
          res.end(behaviour.body ?? "");
          return;
        case "slow": {
          const timer = setTimeout(() => {
            res.writeHead(204);
            res.end();
          }, behaviour.ms);
          res.on("close", () => clearTimeout(timer));
          return;
        }
        case "hang":
          hangingResponses.add(res);
          res.on("close", () => hangingResponses.delete(res));
          return;
        case "huge": {
          res.writeHead(200, { "content-type": "application/octet-stream" });
          const chunk = Buffer.alloc(64 * 1024, 0x61);
          let left = behaviour.bytes;
          const pump = () => {
            while (left > 0) {
              const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
              left -= part.length;
              receiver.hugeBytesWritten += part.length;
              if (!res.write(part)) {
                res.once("drain", pump);
                return;
              }
            }
            res.end();
          };
          res.on("close", () => {
            left = 0;
          });
          pump();
          return;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `https://localhost:${receiver.port}`;
  return receiver;
}
