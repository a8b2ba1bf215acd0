import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.ts";
import type { Db } from "../db/database.ts";
import type { JobHandler, PeriodicTask } from "../jobs/worker.ts";
import type { PlatformConnector } from "./connector.ts";

/** How a mirror sync job ended: the error of a failed attempt (null: it went through) and the watermark. */
export interface SyncOutcome {
  error: string | null;
  watermark: string | null;
}

/**
 * A kind of commerce platform a store can be on (`stores.platform`): how to reach a store's platform
 * (its connector) and what else the platform brings to the service. Only the connector registry
 * (platform/registry.ts) knows the drivers; everything else asks it.
 */
export interface PlatformDriver {
  /** The value of `stores.platform`. */
  readonly name: string;
  /** `db` is the handle a platform kept in this database works through (a store-creation transaction or the pool). */
  connect(ctx: AppContext, db: Db, storeId: number): PlatformConnector | Promise<PlatformConnector>;
  /** After each mirror sync job of one of its stores, whether it ended well or not (e.g. import status). */
  syncSettled?(ctx: AppContext, storeId: number, outcome: SyncOutcome): Promise<void>;
  /**
   * Stores whose platform has changes the mirror has not pulled yet, for a platform that sends no
   * change notifications (the sync scan asks every second).
   */
  storesWithChanges?(db: Db): Promise<number[]>;
  /**
   * Seeds a new store's shop, in the store-creation transaction (a platform the service keeps itself,
   * like the simulator); the mirror imports it right after. Answers the locations the store's settings
   * start hidden.
   */
  seedStore?(
    ctx: AppContext,
    trx: Db,
    store: { id: number; currency: string },
    seed: "demo" | "empty",
  ): Promise<{ hiddenLocationIds: number[] }>;
  periodic?: PeriodicTask[];
  /** Job handlers of the platform itself (e.g. Shopify's webhook subscriptions). */
  jobs?: JobHandler[];
  /** Admin routes of the platform itself (e.g. the simulator's controls). */
  adminRoutes?(app: FastifyInstance): Promise<void>;
}
