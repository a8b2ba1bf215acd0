import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.ts";
import type { Db } from "../db/database.ts";
import type { EmittedEvent } from "../events/outbox.ts";
import type { JobHandler, PeriodicTask } from "../jobs/worker.ts";

export interface CreatedStore {
  id: number;
  name: string;
  currency: string;
  timezone: string;
  /** Who runs the store; the staff module invites them as its owner. */
  owner_email?: string | null;
}

/**
 * A feature module declares what it adds; app.ts and the worker compose them. Nothing registers
 * itself by import side effect.
 */
export interface Module {
  name: string;
  /** Routes under /v2 (each declares its scope in `config.scope`). */
  routes?(app: FastifyInstance): Promise<void>;
  /** Routes under /admin (admin token already checked). */
  adminRoutes?(app: FastifyInstance): Promise<void>;
  /** Pages or files served outside /v2 and /admin (e.g. the console). */
  publicRoutes?(app: FastifyInstance): Promise<void>;
  jobs?: JobHandler[];
  periodic?: PeriodicTask[];
  /** Runs in the store-creation transaction (e.g. seeding the simulated platform). */
  onStoreCreated?(
    ctx: AppContext,
    trx: Db,
    store: CreatedStore,
    options: { seed: "demo" | "empty" },
  ): Promise<void>;
  /**
   * Runs when a stock-moving record's platform_sync becomes `failed` (permanent refusal or attempts
   * exhausted), in the transaction that marks it (e.g. a purchase order history row).
   */
  onPlatformSyncFailed?(
    ctx: AppContext,
    trx: Db,
    failure: {
      storeId: number;
      subjectType: "purchase_order" | "receipt" | "stock_adjustment";
      subjectId: number;
      error: string;
      jobId: number;
    },
  ): Promise<void>;
  /** Runs in the transaction of every emitted event (e.g. webhook fan-out). */
  onEvent?(ctx: AppContext, trx: Db, event: EmittedEvent): Promise<void>;
  /**
   * A value onEvent reads for every event, read in the statement that writes the event instead of a
   * statement of its own (one round trip to the database fewer on every write): `sql` is a scalar
   * expression over `$2`, the event's store id; onEvent finds its value as `event.read[name]` (absent
   * when the event was written otherwise: onEvent then reads it itself).
   */
  eventRead?: { name: string; sql: string };
}
