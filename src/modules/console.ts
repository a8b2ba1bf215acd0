import { consoleAdminRoutes } from "../console/admin-routes.ts";
import { consoleRoutes } from "../console/routes.ts";
import type { Module } from "./module.ts";

/**
 * The merchant console at /console: server-rendered pages over the admin API (issue 10), plus the one
 * admin route it needs that no other module offers (the purchase order PDF for the admin token).
 */
export const consoleModule: Module = {
  name: "console",
  adminRoutes: consoleAdminRoutes,
  publicRoutes: consoleRoutes,
};
