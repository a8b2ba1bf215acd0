import type { FastifyInstance } from "fastify";
import { platformDrivers } from "../platform/registry.ts";
import { alertRuleAdminRoutes } from "./alert-rule-routes.ts";
import { locationAdminRoutes } from "./location-routes.ts";
import { platformSyncAdminRoutes } from "./platform-sync-routes.ts";

/**
 * Admin controls of the platform loop: each platform's own controls (the simulator's), the push queue
 * status and retry, item alert rules, and hiding a location from the API.
 */
export async function platformAdminRoutes(app: FastifyInstance): Promise<void> {
  for (const driver of platformDrivers) if (driver.adminRoutes) await driver.adminRoutes(app);
  await platformSyncAdminRoutes(app);
  await alertRuleAdminRoutes(app);
  await locationAdminRoutes(app);
}
