import type { PeriodicTask } from "../../jobs/worker.ts";
import type { PlatformDriver } from "../driver.ts";
import { simulatorAdminRoutes } from "./admin-routes.ts";
import { simStoresWithChanges } from "./change-feed.ts";
import { SimulatedConnector } from "./connector.ts";
import { seedSimulatedStore } from "./seed.ts";

/**
 * The simulated commerce platform, kept in this database (`sim_*` tables): the default platform of a
 * store, with admin controls to change its catalog and stock and to inject faults. Only the connector
 * registry (and tests) import it.
 */

/** The simulated platform forgets push idempotency keys after 30 days (as real platforms do, sooner). */
const simRetentionTask: PeriodicTask = {
  name: "platform.sim-retention",
  intervalMs: 60 * 60 * 1000,
  async run(ctx) {
    const cutoff = new Date(ctx.clock.now().getTime() - 30 * 24 * 60 * 60 * 1000);
    await ctx.db.deleteFrom("sim_push_keys").where("created_at", "<", cutoff).execute();
  },
};

export const simulatedPlatform: PlatformDriver = {
  name: "simulated",
  connect: (ctx, db, storeId) => new SimulatedConnector(db, ctx.clock, storeId),
  storesWithChanges: simStoresWithChanges,
  seedStore: seedSimulatedStore,
  periodic: [simRetentionTask],
  adminRoutes: simulatorAdminRoutes,
};

/** For tests: a change on the platform's side, as a sale or a recount would make it. */
export { changeSimInventory } from "./inventory.ts";
