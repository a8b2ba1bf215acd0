import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Db } from "../db/database.ts";
import type { Scope } from "../domain/scopes.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { Module } from "../modules/module.ts";
import type { RateLimiter } from "./plugins/rate-limit.ts";
import type { RequestLogWriter } from "./plugins/request-log.ts";

/** What every route and service gets: built once in buildApp, shared by the worker and the CLI paths. */
export interface AppContext {
  config: Config;
  db: Db;
  dbKind: "pglite" | "postgres";
  clock: Clock;
  jobs: JobQueue;
  rateLimiter: RateLimiter;
  requestLog: RequestLogWriter;
  /** Secret used to sign list cursors (random per installation, kept in service_settings). */
  cursorSecret: string;
  /** Key that encrypts stored webhook signing secrets. */
  secretsKey: string;
  /** The feature modules this process runs. */
  modules: readonly Module[];
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
  key: AuthKey;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** The scope a /v2 route needs; routes without one are not part of the authenticated API. */
    scope?: Scope;
    /** `required`: the write is refused without an Idempotency-Key (receipts, adjustment apply). */
    idempotency?: "required" | "optional";
  }
  interface FastifyRequest {
    principal: Principal | null;
    idempotencyClaim: import("./plugins/idempotency.ts").IdempotencyClaim | null;
  }
  interface FastifyInstance {
    ctx: AppContext;
  }
}
