import type { FastifyInstance, FastifyRequest } from "fastify";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { hotQuery, keyLookupBeside, onPool, type ReadAhead } from "../../db/prepared.ts";
import { AppError } from "../../domain/errors.ts";
import { keyHasScope } from "../../domain/scopes.ts";
import { API_KEY_PATTERN, hashSecret } from "../../domain/secrets.ts";
import { scopesOf } from "../../domain/staff/index.ts";
import { authRowsVersion } from "../../domain/stores/index.ts";
import {
  CONSOLE_VIA,
  type ConsoleActor,
  consoleActorAllowed,
  isConsoleAuthorization,
} from "../console-actors.ts";
import type { AuthStore, Principal } from "../context.ts";
import { AuthKeyCache } from "./auth-cache.ts";
import { type KeyRecord, keyLookup, keyLookupWithStore, keyRecordOf } from "./key-lookup.ts";

const unauthorized = (message: string) => new AppError("unauthorized", message);

/** The store a console actor acts in (the console checked it exists before calling). */
const storeLookup = hotQuery("stockroom_auth_console_store", (db: Db) =>
  db
    .selectFrom("stores")
    .select([
      "id",
      "name",
      "domain",
      "currency",
      "timezone",
      "rate_per_key_per_minute",
      "rate_per_store_per_minute",
      "rate_writes_per_store_per_minute",
    ])
    .where("id", "=", 0),
);

/**
 * A console page calling as a staff member or the operator: the store's own settings stand, the key is a
 * stand-in whose name and prefix become history's `by` and `via`, and API access being turned off does
 * not apply (it closes the integrators' door, not the merchant's console).
 */
async function consolePrincipal(ctx: AppContext, actor: ConsoleActor): Promise<Principal> {
  const [store]: AuthStore[] = await storeLookup.run(ctx.db, actor.storeId);
  if (!store) throw unauthorized("The console's store no longer exists.");
  return {
    store,
    key: {
      id: actor.actorId,
      name: actor.by,
      prefix: CONSOLE_VIA,
      scopes: scopesOf(actor.permissions),
      expires_at: null,
    },
    console: actor,
  };
}

type KeyWithStoreRow = Awaited<ReturnType<typeof keyLookupWithStore.run>>[number];

/** The key lookup with each JSON record beside it (keyLookupBeside), made once per route's readAhead. */
const besideKey = new WeakMap<ReadAhead, ReturnType<typeof keyLookupBeside<KeyWithStoreRow>>>();

/**
 * The key's record (undefined when unknown) and the route's record, written as JSON in the key
 * lookup's own statement (one statement, one round trip).
 */
async function readWithKey(
  db: Db,
  hash: string,
  alongside: { readAhead: ReadAhead; id: string },
): Promise<[KeyRecord | undefined, unknown[]]> {
  const { id } = alongside;
  const readAhead = alongside.readAhead.instead?.(id) ?? alongside.readAhead;
  let beside = besideKey.get(readAhead);
  if (!beside) {
    beside = keyLookupBeside(keyLookupWithStore, readAhead);
    besideKey.set(readAhead, beside);
  }
  const [row] = await beside.run(db, hash, id);
  if (!row) return [undefined, []];
  return [keyRecordOf(row.key_json), row.ahead_json == null ? [] : [{ row_json: row.ahead_json }]];
}

/**
 * One indexed lookup per request, or none for a key `cache` keeps (auth-cache.ts). A revoked key or a
 * store whose API access was turned off is refused on the very next request when the change was made
 * through this process (the cache empties before the change answers), and on PostgreSQL within
 * CROSS_PROCESS_BOUND_MS when another process made it (docs/decisions.md, "Key hashing").
 */
export async function authenticate(
  ctx: AppContext,
  authorization: string | undefined,
  cache: AuthKeyCache<KeyRecord> | null = null,
  alongside?: { readAhead: ReadAhead; id: string },
): Promise<Principal & { apiAccess: boolean; readAhead?: unknown[] }> {
  if (!authorization) throw unauthorized("Send the API key as `Authorization: Bearer <key>`.");
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw unauthorized("The Authorization header must be `Bearer <key>`.");
  const token = match[1];
  if (!API_KEY_PATTERN.test(token)) throw unauthorized("The API key is malformed.");
  const hash = hashSecret(token);
  // The route's record read, when it has one, goes to the server in the lookup's statement. If that
  // statement fails (the record's statement refused its id), the lookup runs alone.
  const both = alongside ? await readWithKey(ctx.db, hash, alongside).catch(() => null) : null;
  const read = async () => {
    const [found] = await keyLookup.run(ctx.db, hash);
    return found && keyRecordOf(found.key_json);
  };
  const row = both ? both[0] : cache ? await cache.lookup(hash, read) : await read();
  if (!row) throw unauthorized("The API key is not recognised.");
  if (row.revoked) throw unauthorized("The API key has been revoked.");
  if (row.expires_at !== null && row.expires_at <= ctx.clock.now().getTime()) {
    throw unauthorized("The API key has expired.");
  }
  return {
    apiAccess: row.api_access,
    readAhead: both?.[1],
    store: {
      id: row.store_id,
      name: row.store_name,
      domain: row.domain,
      currency: row.currency,
      timezone: row.timezone,
      rate_per_key_per_minute: row.rate_per_key_per_minute,
      rate_per_store_per_minute: row.rate_per_store_per_minute,
      rate_writes_per_store_per_minute: row.rate_writes_per_store_per_minute,
    },
    key: {
      id: row.key_id,
      name: row.key_name,
      prefix: row.prefix,
      scopes: [...row.scopes],
      expires_at: row.expires_at === null ? null : new Date(row.expires_at),
    },
  };
}

/**
 * On PostgreSQL, how long a kept key may answer after its read began: the longest a revocation, API
 * access turned off or new rate limits written by another process (another API process, a separate
 * worker) go unseen here. Beside 32 connections of PDFs, GET /whoami's own lookup was a round trip
 * to a server busy with theirs (docs/history/performance-journal.md, "whoami beside PDFs with keys kept");
 * one read a second per key in use costs nothing that shows.
 */
export const CROSS_PROCESS_BOUND_MS = 1_000;

/** Registers authentication and scope checks for every route of the instance that declares a scope. */
export function registerAuth(app: FastifyInstance): void {
  app.decorateRequest("principal", null);
  const clock = app.ctx.clock;
  // The embedded database is this process's alone: its cache is exact without a bound.
  const cache = new AuthKeyCache<KeyRecord>(
    authRowsVersion,
    app.ctx.dbKind === "pglite" ? {} : { maxAgeMs: CROSS_PROCESS_BOUND_MS, now: () => clock.now().getTime() },
  );
  app.decorateRequest("readAhead", null);
  // PostgreSQL only: see onPool. There a route's record is read in the key lookup's statement, which
  // also reads the key afresh, so such routes do not use the cache.
  const readsAhead = onPool(app.ctx.db);
  app.addHook("onRequest", async (request: FastifyRequest) => {
    const config = request.routeOptions.config;
    const scope = config?.scope;
    if (!scope) return;
    if (isConsoleAuthorization(request.headers.authorization)) {
      const actor = app.consoleActors.resolve(request.headers.authorization);
      if (!actor) throw unauthorized("Console calls are made by the console in process only.");
      request.principal = await consolePrincipal(app.ctx, actor);
      if (!consoleActorAllowed(actor, scope, config.receiving === true)) {
        throw new AppError("insufficient_scope", `Your role does not allow this (it needs \`${scope}\`).`);
      }
      return;
    }
    const id = readsAhead && config.readAhead ? pathId(request, config.readAhead.maxId) : null;
    const { apiAccess, readAhead, ...principal } = await authenticate(
      app.ctx,
      request.headers.authorization,
      cache,
      id && config.readAhead ? { readAhead: config.readAhead, id } : undefined,
    );
    // Known key from here on: even a refused request is logged against it.
    request.principal = principal;
    if (id && readAhead) request.readAhead = { id, rows: readAhead };
    if (!apiAccess) {
      throw new AppError(
        "feature_not_enabled",
        "API access is turned off for this store; turn it on in the store's API settings.",
      );
    }
    if (!keyHasScope(principal.key.scopes, scope)) {
      throw new AppError(
        "insufficient_scope",
        `This route needs the \`${scope}\` scope, which the key was not given.`,
      );
    }
  });
}

/**
 * The path's `:id` as authentication may read ahead with it: digits only, no leading zero, at most
 * the record's largest id. Anything else is left to the route's validation (and its own read).
 */
function pathId(request: FastifyRequest, maxId: number): string | null {
  const id = (request.params as { id?: unknown } | undefined)?.id;
  return typeof id === "string" && /^[1-9][0-9]{0,15}$/.test(id) && Number(id) <= maxId ? id : null;
}

/**
 * The rows the route's readAhead read with the key lookup, when it did, for the id the handler was
 * given (validated); undefined when the handler must read itself (embedded database, console calls,
 * an id given otherwise).
 */
export function readAheadRows<Row>(request: FastifyRequest, id: number): Row[] | undefined {
  const ahead = request.readAhead;
  return ahead && ahead.id === String(id) ? (ahead.rows as Row[]) : undefined;
}

/** The authenticated principal of a /v2 route (routes declare a scope, so it is always set). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error("route reached without authentication");
  return request.principal;
}
