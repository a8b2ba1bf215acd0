import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../../db/database.ts";
import { hotSql } from "../../db/prepared.ts";
import { AppError } from "../../domain/errors.ts";
import { JsonText } from "../json-text-reply.ts";
import { type SealingKey, STORED_RESPONSE_PURPOSE, seal, sealingKey, unseal } from "./sealed-text.ts";

export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** A claim still `in_progress` after this long belongs to a process that died; another may take it. */
export const STALE_CLAIM_MS = 60 * 1000;
const MAX_KEY_LENGTH = 255;
const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export interface IdempotencyClaim {
  storeId: number;
  apiKeyId: number;
  key: string;
  lockedAt: Date;
  /** Set when the handler stored its response inside its own transaction. */
  completed: boolean;
  /** Key that seals the stored response. */
  sealKey: SealingKey;
}

/**
 * JSON with sorted keys, so key order and whitespace never make two equal bodies differ. Iterative: a
 * body nests as deep as the client likes (routes without a body schema hash whatever was sent), and a
 * recursive walk of a 3,000-deep body overflowed the stack.
 */
export function canonicalJson(root: unknown): string {
  const out: string[] = [];
  // What is still to write, last first: values, and beside each `true` in `isText` a text to write as
  // it is (two arrays rather than a wrapper object for each: a 50-line receipt's body has ~300).
  const work: unknown[] = [root];
  const isText: boolean[] = [false];
  while (work.length > 0) {
    const value = work.pop();
    if (isText.pop()) {
      out.push(value as string);
    } else if (value === null || typeof value !== "object") {
      out.push(JSON.stringify(value) ?? "null");
    } else if (Array.isArray(value)) {
      work.push("]");
      isText.push(true);
      for (let i = value.length - 1; i >= 0; i--) {
        work.push(value[i]);
        isText.push(false);
        if (i > 0) {
          work.push(",");
          isText.push(true);
        }
      }
      out.push("[");
    } else {
      const keys = Object.keys(value).sort();
      work.push("}");
      isText.push(true);
      for (let i = keys.length - 1; i >= 0; i--) {
        work.push((value as Record<string, unknown>)[keys[i]]);
        isText.push(false);
        work.push(`${i > 0 ? "," : ""}${JSON.stringify(keys[i])}:`);
        isText.push(true);
      }
      out.push("{");
    }
  }
  return out.join("");
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The header's length in characters, as the contract counts it. Node reads header bytes as latin1, so a
 * key of 200 `é` arrives as 400 code units; read as UTF-8 (when it is) and count code points.
 */
function characterCount(header: string): number {
  if (!/[^\x20-\x7e]/.test(header)) return header.length;
  try {
    return [...utf8.decode(Buffer.from(header, "latin1"))].length;
  } catch {
    return header.length;
  }
}

function requestHash(request: FastifyRequest): string {
  return createHash("sha256")
    .update(`${request.method} ${request.url}\n${canonicalJson(request.body ?? null)}`)
    .digest("hex");
}

/**
 * Stores the response for the claim inside the caller's transaction, so the write and its
 * idempotency record commit together: a crash either loses both (the retry runs again) or keeps
 * both (the retry replays). Routes reach it through `writeTransaction`.
 */
export async function completeClaim(
  trx: Db,
  claim: IdempotencyClaim,
  status: number,
  body: unknown,
): Promise<void> {
  await storeResponse.run(trx, status, sealedAnswer(claim, body), claim.storeId, claim.apiKeyId, claim.key);
  claim.completed = true;
}

function sealedAnswer(claim: IdempotencyClaim, body: unknown): string | null {
  return body === undefined
    ? null
    : seal(body instanceof JsonText ? body.bytes() : JSON.stringify(body), claim.sealKey);
}

/**
 * `completeClaim` as a write for a part of the caller's own statement (a WITH part): the answer is
 * stored by the statement that writes the request's rows, one round trip fewer in its transaction.
 * The same update as `storeResponse`; the caller marks the claim completed once the statement ran
 * (write.ts).
 */
export function completeClaimInStatement(
  claim: IdempotencyClaim,
  status: number,
  body: unknown,
): RawBuilder<unknown> {
  return sql`update idempotency_keys set state = 'done', status_code = ${status},
      response_body = ${sealedAnswer(claim, body)}
    where store_id = ${claim.storeId} and api_key_id = ${claim.apiKeyId} and key = ${claim.key}`;
}

// Every keyed write runs these two: fixed texts, prepared once per PostgreSQL connection
// (db/prepared.ts), not built, compiled, parsed and planned for each request.
const storeResponse = hotSql<
  [status: number, body: string | null, storeId: number, apiKeyId: number, key: string],
  never
>(
  "stockroom_idempotency_store_response",
  `update idempotency_keys set state = 'done', status_code = $1, response_body = $2
   where store_id = $3 and api_key_id = $4 and key = $5`,
  { priority: false },
);

const claimKeyStatement = hotSql<
  [storeId: number, apiKeyId: number, key: string, hash: string, now: Date],
  { key: string }
>(
  "stockroom_idempotency_claim",
  `insert into idempotency_keys
     (store_id, api_key_id, key, request_hash, state, status_code, response_body, locked_at, created_at)
   select $1::int, $2::int, $3::text, $4::text, 'in_progress', null, null, $5::timestamptz, $5::timestamptz
   where set_config('synchronous_commit', 'off', true) = 'off'
   on conflict (store_id, api_key_id, key) do nothing
   returning key`,
  { priority: false },
);

/**
 * The claim, committed on its own so a concurrent retry sees it at once (409 in progress), but without
 * waiting for its WAL to reach the disk (`synchronous_commit` off for this statement's transaction
 * only): the write's own transaction commits synchronously after it, and flushing that commit flushes
 * the earlier claim with it, so an answered request has both on disk. A crash before then loses at
 * most a claim whose write never committed, and the retry then runs at once instead of after 60 s.
 * One fsync per request instead of two (PostgreSQL; the embedded database does not sync).
 */
async function insertClaim(
  db: Db,
  ids: { store_id: number; api_key_id: number; key: string },
  hash: string,
  now: Date,
): Promise<boolean> {
  const rows = await claimKeyStatement.run(db, ids.store_id, ids.api_key_id, ids.key, hash, now);
  return rows.length > 0;
}

async function releaseClaim(db: Db, claim: IdempotencyClaim): Promise<void> {
  await db
    .deleteFrom("idempotency_keys")
    .where("store_id", "=", claim.storeId)
    .where("api_key_id", "=", claim.apiKeyId)
    .where("key", "=", claim.key)
    .where("state", "=", "in_progress")
    .execute();
}

export function registerIdempotency(app: FastifyInstance): void {
  app.decorateRequest("idempotencyClaim", null);
  const sealKey = sealingKey(app.ctx.sealer, STORED_RESPONSE_PURPOSE);

  // After validation: a request refused by its schema never reached the handler and claims nothing.
  const claimKey = async (request: FastifyRequest, reply: FastifyReply) => {
    const principal = request.principal;
    if (!principal || !WRITE_METHODS.has(request.method)) return;
    const required = request.routeOptions.config?.idempotency === "required";
    const header = request.headers["idempotency-key"];
    if (header === undefined) {
      if (required)
        throw new AppError(
          "idempotency_key_required",
          "This call moves stock: send an Idempotency-Key header.",
        );
      return;
    }
    const key = Array.isArray(header) ? header[0] : header;
    if (key.trim() === "") {
      if (required) throw new AppError("idempotency_key_required", "The Idempotency-Key header is empty.");
      throw new AppError("bad_request", "The Idempotency-Key header is empty.");
    }
    if (characterCount(key) > MAX_KEY_LENGTH) {
      throw new AppError(
        "bad_request",
        `The Idempotency-Key header is longer than ${MAX_KEY_LENGTH} characters.`,
      );
    }
    const { db, clock } = app.ctx;
    const now = clock.now();
    const hash = requestHash(request);
    const ids = { store_id: principal.store.id, api_key_id: principal.key.id, key };
    const newClaim = (): IdempotencyClaim => ({
      storeId: ids.store_id,
      apiKeyId: ids.api_key_id,
      key,
      lockedAt: now,
      completed: false,
      sealKey,
    });

    for (let attempt = 0; attempt < 3; attempt++) {
      // The primary key makes concurrent duplicates race on the database, not on a read-then-write.
      const inserted = await insertClaim(db, ids, hash, now);
      if (inserted) {
        request.idempotencyClaim = newClaim();
        return;
      }
      const existing = await db
        .selectFrom("idempotency_keys")
        .selectAll()
        .where("store_id", "=", ids.store_id)
        .where("api_key_id", "=", ids.api_key_id)
        .where("key", "=", key)
        .executeTakeFirst();
      if (!existing) continue; // released between our insert and read: try again
      if (existing.created_at.getTime() <= now.getTime() - IDEMPOTENCY_RETENTION_MS) {
        await db
          .deleteFrom("idempotency_keys")
          .where("store_id", "=", ids.store_id)
          .where("api_key_id", "=", ids.api_key_id)
          .where("key", "=", key)
          .where("created_at", "=", existing.created_at)
          .execute();
        continue;
      }
      if (existing.request_hash !== hash) {
        throw new AppError(
          "idempotency_key_reused",
          "This Idempotency-Key was already used with a different request.",
        );
      }
      if (existing.state === "done") {
        reply.header("idempotent-replayed", "true");
        reply.code(existing.status_code ?? 200);
        if (existing.response_body === null) return reply.send();
        return reply
          .type("application/json; charset=utf-8")
          .serializer((payload: unknown) => payload as string)
          .send(unseal(existing.response_body, sealKey));
      }
      if (existing.locked_at.getTime() > now.getTime() - STALE_CLAIM_MS) {
        throw new AppError(
          "idempotency_in_progress",
          "A request with this Idempotency-Key is still running; retry shortly.",
        );
      }
      // The first attempt's process died mid-request: take the claim over, atomically.
      const taken = await db
        .updateTable("idempotency_keys")
        .set({ locked_at: now })
        .where("store_id", "=", ids.store_id)
        .where("api_key_id", "=", ids.api_key_id)
        .where("key", "=", key)
        .where("state", "=", "in_progress")
        .where("locked_at", "=", existing.locked_at)
        .returning("key")
        .executeTakeFirst();
      if (taken) {
        request.idempotencyClaim = newClaim();
        return;
      }
      throw new AppError(
        "idempotency_in_progress",
        "A request with this Idempotency-Key is still running; retry shortly.",
      );
    }
    throw new AppError(
      "idempotency_in_progress",
      "A request with this Idempotency-Key is still running; retry shortly.",
    );
  };

  // Responses that did not store themselves in their transaction (refusals, reads-only writes) are
  // stored here; 5xx and 429 give the key back so the client's retry runs for real.
  const settleClaim = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const claim = request.idempotencyClaim;
    if (!claim || claim.completed) return payload;
    claim.completed = true;
    const status = reply.statusCode;
    try {
      if (status >= 500 || status === 429) {
        await releaseClaim(app.ctx.db, claim);
      } else {
        const body = typeof payload === "string" ? payload : payload == null ? null : String(payload);
        await app.ctx.db
          .updateTable("idempotency_keys")
          .set({
            state: "done",
            status_code: status,
            response_body: body === "" || body === null ? null : seal(body, claim.sealKey),
          })
          .where("store_id", "=", claim.storeId)
          .where("api_key_id", "=", claim.apiKeyId)
          .where("key", "=", claim.key)
          .where("state", "=", "in_progress")
          .execute();
      }
    } catch (error) {
      request.log.warn({ err: error }, "could not settle idempotency claim; it expires after 60 s");
    }
    return payload;
  };

  // Only write routes carry the two hooks: reads (most of the traffic) skip them altogether.
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((m) => WRITE_METHODS.has(m))) return;
    route.preHandler = [...hookList(route.preHandler), claimKey];
    route.onSend = [...hookList(route.onSend), settleClaim];
  });
}

function hookList<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}
