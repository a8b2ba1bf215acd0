import { consoleRoutes } from "../console/routes.ts";
import type { Module } from "./module.ts";

/** The merchant console at /console: server-rendered pages over the admin API (issue 10). */
export const consoleModule: Module = {
  name: "console",
  publicRoutes: consoleRoutes,
};
