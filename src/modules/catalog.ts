import { platformAdminRoutes } from "../admin/platform-routes.ts";
import { catalogRoutes } from "../http/routes/catalog.ts";
import { stockLevelRoutes } from "../http/routes/stock-levels.ts";
import { setUpStorePlatform } from "../platform/new-store.ts";
import { createPushJobHandler, type PushHooks } from "../platform/push.ts";
import { platformJobHandlers, platformPeriodicTasks } from "../platform/registry.ts";
import { catalogSyncJobHandler, catalogSyncScanTask } from "../platform/sync-jobs.ts";
import type { Module } from "./module.ts";

/**
 * The catalog mirror and the platform loop: read endpoints (the catalog, and stock levels for people), the simulated platform (seeded when a
 * store is created and imported into the mirror in that same transaction), the mirror sync (a scan
 * every second enqueues per-store sync jobs), the stock push worker, and their admin controls.
 */
export function createCatalogModule(options: { pushHooks?: PushHooks } = {}): Module {
  return {
    name: "catalog",
    async routes(app) {
      await catalogRoutes(app);
      await stockLevelRoutes(app);
    },
    adminRoutes: platformAdminRoutes,
    jobs: [catalogSyncJobHandler, createPushJobHandler(options.pushHooks), ...platformJobHandlers()],
    periodic: [catalogSyncScanTask, ...platformPeriodicTasks()],
    async onStoreCreated(ctx, trx, store, options) {
      await setUpStorePlatform(ctx, trx, store, options.seed);
    },
  };
}

export const catalogModule: Module = createCatalogModule();
