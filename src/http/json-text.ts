import type { FastifyReply } from "fastify";

/**
 * An answer's body already serialized, sent and stored (idempotent replays) as it is: a 500-line
 * order's JSON whose lines PostgreSQL wrote (domain/purchase-orders/line-text.ts), which stringifying
 * again would cost the event loop what writing it in the database saved (issue 18 item 2).
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/** Sends `body` as the answer's JSON, unchanged (the route's schema serializer made it). */
export function sendJsonText(reply: FastifyReply, body: JsonText): FastifyReply {
  return reply
    .type("application/json; charset=utf-8")
    .serializer((payload: unknown) => payload as string)
    .send(body.text);
}
