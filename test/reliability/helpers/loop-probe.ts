/**
 * A GET sent through the service's own request handler on its event loop, with no socket: Node's
 * IncomingMessage and ServerResponse, as an HTTP request makes them, given to `app.routing` (the
 * handler Fastify's server calls). For the noisy-neighbour test's timed probe.
 *
 * Not Fastify's `inject` (light-my-request): its Request defines an accessor (`connection`) on each
 * instance with a closure of its own, so V8 makes each request a hidden class of its own, in the old
 * generation, through which the scavenger finds that request and everything it references alive:
 * about 6.7 KB promoted per request (a bare dispatch function, 23,000 requests), every request of the
 * probe's 100 a second, in idle and loaded phases alike. That filled the main thread's old
 * generation faster than store B's heaviest requests did and brought full collections into both
 * phases (docs/history/reliability-journal.md 5b, tenth session). An HTTP request over a socket has no such
 * accessor.
 */
import { EventEmitter } from "node:events";
import { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { Writable } from "node:stream";
import type { FastifyInstance } from "fastify";

/** What the response writes (status line, headers, body) goes nowhere. */
const sink = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

/** GET `path` with `headers` through the app's handler; resolves with the status once the answer is sent. */
export function loopGet(
  app: FastifyInstance,
  path: string,
  headers: Record<string, string>,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = Object.assign(new EventEmitter(), {
      remoteAddress: "127.0.0.1",
      encrypted: false,
      readableHighWaterMark: 16_384,
    }) as unknown as Socket;
    const req = new IncomingMessage(socket);
    req.method = "GET";
    req.url = path;
    req.headers = { host: "localhost", ...headers };
    req.push(null);
    const res = new ServerResponse(req);
    const out = sink();
    // An answer bigger than the sink's buffer (a big order's pieces) waits for the response's 'drain',
    // which Node's HTTP server relays from the socket's; here the sink is the socket.
    out.on("drain", () => res.emit("drain"));
    res.assignSocket(out as unknown as Socket);
    res.once("finish", () => resolve(res.statusCode));
    res.once("error", reject);
    app.routing(req, res);
  });
}
