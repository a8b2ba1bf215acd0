import type { Statements } from "./index.ts";

/**
 * Products and variants deleted on the platform stay in the mirror (orders, receipts and supplier
 * price lists refer to them) and are marked with the moment the mirror learned of it.
 */
export const catalogDeletionsMigration: Statements = [
  `alter table products add column deleted_at timestamptz`,
  `alter table variants add column deleted_at timestamptz`,
];
