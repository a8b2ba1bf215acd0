import type { AppContext } from "../context.ts";
import type { ReadAhead } from "../db/prepared.ts";
import type { Scope } from "../domain/scopes.ts";
import type { ConsoleActor, ConsoleActors } from "./console-actors.ts";
import type { RateLimiter } from "./plugins/rate-limit.ts";
import type { RequestLogWriter } from "./plugins/request-log.ts";

/** The API process's context: the application context plus what only the HTTP layer uses. */
export interface HttpContext extends AppContext {
  rateLimiter: RateLimiter;
  requestLog: RequestLogWriter;
}

export interface AuthStore {
  id: number;
  name: string;
  domain: string;
  currency: string;
  timezone: string;
  rate_per_key_per_minute: number;
  rate_per_store_per_minute: number;
  rate_writes_per_store_per_minute: number;
}

export interface AuthKey {
  id: number;
  name: string;
  prefix: string;
  scopes: string[];
  expires_at: Date | null;
}

export interface Principal {
  store: AuthStore;
  /** The API key; for a console actor, a stand-in (name = who, prefix = "console", no row behind it). */
  key: AuthKey;
  /** Set when a console page calls in process as a staff member or the operator (console-actors.ts). */
  console?: ConsoleActor;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** The scope a /v2 route needs; routes without one are not part of the authenticated API. */
    scope?: Scope;
    /** `required`: the write is refused without an Idempotency-Key (receipts, adjustment apply). */
    idempotency?: "required" | "optional";
    /**
     * The route records or voids a receipt: a console actor allowed to receive (the inventory role)
     * may call it without the route's scope.
     */
    receiving?: true;
    /**
     * Line-heavy: a store's such requests run one at a time (plugins/store-turns.ts); `in-handler`: the
     * handler takes the turn (takeStoreTurn) once it finds the request heavy.
     */
    storeTurn?: boolean | "in-handler";
    /**
     * A single-record read (`/…/:id`) that authentication sends to PostgreSQL together with the key
     * lookup (db/prepared.ts); the handler takes its rows with `readAheadRows`.
     */
    readAhead?: ReadAhead;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** The rows of the route's readAhead for the path's id, read with the key lookup. */
    readAhead: { id: string; rows: unknown[] } | null;
    idempotencyClaim: import("./plugins/idempotency.ts").IdempotencyClaim | null;
  }
  interface FastifyInstance {
    ctx: HttpContext;
    /** The console's in-process callers of the APIs (console-actors.ts). */
    consoleActors: ConsoleActors;
  }
}
