import { foundationAdminRoutes } from "../admin/routes.ts";
import { whoamiRoutes } from "../http/routes/whoami.ts";
import type { Module } from "./module.ts";
import { retentionTask } from "./retention.ts";

export const foundationModule: Module = {
  name: "foundation",
  routes: whoamiRoutes,
  adminRoutes: foundationAdminRoutes,
  periodic: [retentionTask],
};
