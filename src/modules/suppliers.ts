import { supplierAdminRoutes } from "../admin/supplier-routes.ts";
import { supplierRoutes } from "../http/routes/suppliers.ts";
import type { Module } from "./module.ts";

/** Suppliers, their catalogs and price lists (contract "Suppliers"; decisions §6). */
export const suppliersModule: Module = {
  name: "suppliers",
  routes: supplierRoutes,
  adminRoutes: supplierAdminRoutes,
};
