import type { Statements } from "./index.ts";

/**
 * A supplier found by its whole name (`GET /v2/suppliers?name=`, ignoring case and the spaces around
 * it): the console resolves a supplier typed in full this way however many other names start with the
 * same words. The expression is the filter's, word for word, so the index serves it.
 */
export const supplierNameLookupMigration: Statements = [
  "create index suppliers_name on suppliers (store_id, lower(btrim(name)))",
];
