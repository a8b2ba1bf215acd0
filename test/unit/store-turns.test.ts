import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import Fastify, { type FastifyRequest } from "fastify";
import { registerStoreTurns } from "../../src/http/plugins/store-turns.ts";

/**
 * A store's turn outlives no request: a client that leaves while its request waits for the turn must
 * not keep it once its turn comes (before the fix, every later line-heavy request of that store waited
 * forever: the benchmark's order creation stalled at 32 connections with zero answers).
 */

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (condition()) return;
    await new Promise<void>((resolve) => setTimeout(resolve, 5));
  }
  assert.fail(`never happened: ${what}`);
}

function get(port: number, path: string): { done: Promise<number>; request: http.ClientRequest } {
  const request = http.request({ port, host: "127.0.0.1", path, agent: false });
  const done = new Promise<number>((resolve, reject) => {
    request.on("response", (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
    });
    request.on("error", reject);
  });
  request.end();
  return { done, request };
}

test("a request whose client left while it waited gives the store's turn back when its turn comes", async (t) => {
  const app = Fastify();
  t.after(() => app.close());
  const responses = new Map<string, http.ServerResponse>();
  app.addHook("onRequest", async (request: FastifyRequest, reply) => {
    (request as unknown as { principal: unknown }).principal = { store: { id: 7 } };
    responses.set(request.url, reply.raw);
  });
  const turns = registerStoreTurns(app);
  let openGate = () => {};
  const gate = new Promise<void>((resolve) => {
    openGate = resolve;
  });
  const ran: string[] = [];
  app.get("/holds", { config: { storeTurn: true } }, async () => {
    await gate;
    return { ok: true };
  });
  app.get("/light", { config: { storeTurn: true } }, async (request) => {
    ran.push(request.url);
    return { ok: true };
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = app.server.address() as AddressInfo;

  const holder = get(port, "/holds");
  await until(() => turns.heldBy(7) === 1, "the first request holds the turn");
  const leaver = get(port, "/light?leaves");
  leaver.done.catch(() => {}); // it left: its connection resets
  await until(() => turns.heldBy(7) === 2, "the second request waits");
  leaver.request.destroy();
  await until(() => responses.get("/light?leaves")?.destroyed === true, "the server sees the client leave");

  openGate();
  assert.equal(await holder.done, 200);
  await until(() => ran.includes("/light?leaves"), "the left request's handler runs in its turn");
  for (let i = 0; i < 10; i++) await tick();
  assert.equal(turns.heldBy(7), 0, "no turn is held once both requests are over");

  const after = get(port, "/light?after");
  assert.equal(await after.done, 200);
  assert.equal(turns.heldBy(7), 0);
});

test("a store's turn is given back however its request ends: the handler throws, an onSend hook throws, an earlier onResponse hook throws, the client leaves mid-answer", async (t) => {
  const app = Fastify({ logger: false });
  t.after(() => app.close());
  app.addHook("onRequest", async (request: FastifyRequest) => {
    (request as unknown as { principal: unknown }).principal = { store: { id: 9 } };
  });
  // Registered before the turns' own onResponse hook, so it runs first and, throwing, skips it.
  app.addHook("onResponse", async (request: FastifyRequest) => {
    if (request.url === "/on-response-throws") throw new Error("a hook failed");
  });
  const turns = registerStoreTurns(app);
  app.addHook("onSend", async (request: FastifyRequest) => {
    if (request.url === "/on-send-throws") throw new Error("onSend failed");
  });
  let heldWhileRunning = 0;
  const route = (path: string, handler: () => Promise<unknown>) =>
    app.get(path, { config: { storeTurn: true } }, async () => {
      heldWhileRunning = turns.heldBy(9);
      return handler();
    });
  route("/throws", async () => {
    throw new Error("the handler failed");
  });
  route("/on-send-throws", async () => ({ ok: true }));
  route("/on-response-throws", async () => ({ ok: true }));
  let releaseStream = () => {};
  app.get("/streams", { config: { storeTurn: true } }, async (_request, reply) => {
    heldWhileRunning = turns.heldBy(9);
    const { PassThrough } = await import("node:stream");
    const body = new PassThrough();
    body.write("partial answer ");
    releaseStream = () => body.destroy();
    return reply.type("text/plain").send(body);
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = app.server.address() as AddressInfo;

  // One keep-alive connection for all of them, as a client pooling connections sends them.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  t.after(() => agent.destroy());
  const statusOf = (path: string) =>
    new Promise<number>((resolve, reject) => {
      http
        .get({ port, host: "127.0.0.1", path, agent }, (response) => {
          response.resume();
          response.on("end", () => resolve(response.statusCode ?? 0));
        })
        .on("error", reject);
    });
  for (const [path, status] of [
    ["/throws", 500],
    ["/on-send-throws", 500],
    ["/on-response-throws", 200],
  ] as const) {
    heldWhileRunning = 0;
    assert.equal(await statusOf(path), status, path);
    assert.equal(heldWhileRunning, 1, `${path} ran in its turn`);
    await until(() => turns.heldBy(9) === 0, `${path} gives the turn back`);
  }

  // The client leaves while the answer is still streaming.
  const leaving = http.get({ port, host: "127.0.0.1", path: "/streams", agent: false });
  leaving.on("error", () => {});
  await new Promise<void>((resolve) => leaving.on("response", () => resolve()));
  assert.equal(turns.heldBy(9), 1, "the streaming answer holds the turn");
  leaving.destroy();
  await until(() => turns.heldBy(9) === 0, "a client leaving mid-answer gives the turn back");
  releaseStream();
  assert.equal(await statusOf("/throws"), 500, "the store's next request is not held");
});
