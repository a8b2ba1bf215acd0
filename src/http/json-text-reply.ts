import type { FastifyReply } from "fastify";

/**
 * Sends a body the database wrote as JSON text (src/db/json-text.ts) as it is: Fastify passes a string
 * with a JSON content type through without running the route's serializer. The route keeps its
 * response schema for the OpenAPI document; test/http/json-from-database.test.ts holds the text to it.
 */
// biome-ignore lint/suspicious/noExplicitAny: any route's reply, whatever its typed schema
export function sendJsonText(reply: FastifyReply<any, any, any, any, any, any, any, any>, text: string) {
  return (reply as FastifyReply).type("application/json; charset=utf-8").send(text);
}

/**
 * An answer's body already serialized, sent and stored (idempotent replays) as it is: a 500-line
 * order's JSON whose lines PostgreSQL wrote (domain/purchase-orders/line-text.ts), which stringifying
 * again would cost the event loop what writing it in the database saved (issue 18 item 2). Write
 * routes return it from their transaction (write.ts).
 */
export class JsonText {
  constructor(readonly text: string) {}
}
