import type { FastifyReply, FastifyRequest } from "fastify";
import type { RawBuilder } from "kysely";
import type { Db } from "../db/database.ts";
import { JsonText } from "./json-text-reply.ts";
import { completeClaim, completeClaimInStatement } from "./plugins/idempotency.ts";

export interface WriteResult<T> {
  status: number;
  body: T;
}

/**
 * The request's stored answer (its Idempotency-Key's) for the work to write in a statement of its
 * own, where the work knows its answer before its last statement: `inStatement` gives the write as
 * named WITH parts for that statement (none when the request carries no key). The work must then
 * return that status and body, and run the parts; `writeTransaction` stores nothing more.
 */
export interface StoredAnswer {
  inStatement(status: number, body: unknown): Array<[name: string, write: RawBuilder<unknown>]>;
}

/**
 * Runs a write in one transaction and, when the request carries an Idempotency-Key, stores the
 * response in that same transaction: after the work, or in the work's own statement when it asked
 * (`StoredAnswer`). Every route that changes data goes through here. A body may be JsonText (already
 * serialized): it is stored and sent as it is.
 */
export async function writeTransaction<T>(
  request: FastifyRequest,
  work: (trx: Db, answer: StoredAnswer) => Promise<WriteResult<T>>,
): Promise<WriteResult<T>> {
  const claim = request.idempotencyClaim;
  return request.server.ctx.db.transaction().execute(async (trx) => {
    let stored: { status: number; body: unknown } | undefined;
    const answer: StoredAnswer = {
      inStatement(status, body) {
        if (!claim) return [];
        stored = { status, body };
        return [["answer_stored", completeClaimInStatement(claim, status, body)]];
      },
    };
    const result = await work(trx, answer);
    if (!claim) return result;
    if (!stored) {
      await completeClaim(trx, claim, result.status, result.body);
    } else {
      // A replay must answer what this request answers: the stored answer is the one returned.
      if (stored.status !== result.status || stored.body !== result.body)
        throw new Error("a write stored one answer in its statement and returned another");
      claim.completed = true;
    }
    return result;
  });
}

/** `writeTransaction`, then send the result. */
export async function sendWrite<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  work: (trx: Db, answer: StoredAnswer) => Promise<WriteResult<T>>,
): Promise<FastifyReply> {
  const result = await writeTransaction(request, work);
  reply.code(result.status);
  if (result.body instanceof JsonText) return result.body.send(reply);
  return result.body === undefined ? reply.send() : reply.send(result.body);
}
