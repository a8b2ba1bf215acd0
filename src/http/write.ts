import type { FastifyReply, FastifyRequest } from "fastify";
import type { Db } from "../db/database.ts";
import { JsonText } from "./json-text-reply.ts";
import { completeClaim } from "./plugins/idempotency.ts";

export interface WriteResult<T> {
  status: number;
  body: T;
}

/**
 * Runs a write in one transaction and, when the request carries an Idempotency-Key, stores the
 * response in that same transaction. Every route that changes data goes through here. A body may be
 * JsonText (already serialized): it is stored and sent as it is.
 */
export async function writeTransaction<T>(
  request: FastifyRequest,
  work: (trx: Db) => Promise<WriteResult<T>>,
): Promise<WriteResult<T>> {
  const claim = request.idempotencyClaim;
  return request.server.ctx.db.transaction().execute(async (trx) => {
    const result = await work(trx);
    if (claim) await completeClaim(trx, claim, result.status, result.body);
    return result;
  });
}

/** `writeTransaction`, then send the result. */
export async function sendWrite<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  work: (trx: Db) => Promise<WriteResult<T>>,
): Promise<FastifyReply> {
  const result = await writeTransaction(request, work);
  reply.code(result.status);
  if (result.body instanceof JsonText) return result.body.send(reply);
  return result.body === undefined ? reply.send() : reply.send(result.body);
}
