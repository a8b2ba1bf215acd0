import { supplierAdminRoutes } from "../admin/supplier-routes.ts";
import { supplierRoutes } from "../http/routes/suppliers.ts";
import type { Module } from "./module.ts";

/**
 * Suppliers, their catalogs and price lists (contract "Suppliers"; docs/decisions.md, "Suppliers and their
 * catalogs").
 */
export const suppliersModule: Module = {
  name: "suppliers",
  routes: supplierRoutes,
  adminRoutes: supplierAdminRoutes,
};
