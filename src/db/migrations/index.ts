import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from "kysely";
import { foundationMigration } from "./001_foundation.ts";
import { catalogMigration } from "./002_catalog.ts";
import { suppliersMigration } from "./003_suppliers.ts";
import { purchaseOrdersMigration } from "./004_purchase_orders.ts";
import { stockAdjustmentsMigration } from "./005_stock_adjustments.ts";
import { webhooksMigration } from "./006_webhooks.ts";
import { receiptsPaymentsMigration } from "./007_receipts_payments.ts";
import { writeCostsMigration } from "./008_write_costs.ts";
import { simItemCostsMigration } from "./009_sim_item_costs.ts";
import { pushGenerationsMigration } from "./010_push_generations.ts";
import { shopifyMigration } from "./011_shopify.ts";
import { staffMigration } from "./012_staff.ts";
import { shopifyInboundMigration } from "./013_shopify_inbound.ts";
import { platformIdSubjectsMigration } from "./015_platform_id_subjects.ts";
import { searchMigration } from "./016_search.ts";
import { shopifyInstalledAtMigration } from "./017_shopify_installed_at.ts";
import { catalogDeletionsMigration } from "./018_catalog_deletions.ts";
import { purchaseOrderCreatedSortMigration } from "./019_purchase_order_created_sort.ts";
import { pushSkipsMigration } from "./021_push_skips.ts";
import { reconcileBulkOperationMigration } from "./022_reconcile_bulk_operation.ts";
import { syncBulkOperationMigration } from "./028_sync_bulk_operation.ts";
import { supplierNameLookupMigration } from "./031_supplier_name_lookup.ts";
import { pushBatchesMigration } from "./034_push_batches.ts";
import { linePageRoomMigration } from "./035_line_page_room.ts";
import { writePathCostsMigration } from "./036_write_path_costs.ts";

/** A migration is a list of statements, run one by one (PGlite's extended protocol takes one at a time). */
export type Statements = readonly string[];

export function migrationOf(statements: Statements): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const statement of statements) await sql.raw(statement).execute(db);
    },
  };
}

const migrations: Record<string, Migration> = {
  "001_foundation": migrationOf(foundationMigration),
  "002_catalog": migrationOf(catalogMigration),
  "003_suppliers": migrationOf(suppliersMigration),
  "004_purchase_orders": migrationOf(purchaseOrdersMigration),
  "005_stock_adjustments": migrationOf(stockAdjustmentsMigration),
  "006_webhooks": migrationOf(webhooksMigration),
  "007_receipts_payments": migrationOf(receiptsPaymentsMigration),
  "008_write_costs": migrationOf(writeCostsMigration),
  "009_sim_item_costs": migrationOf(simItemCostsMigration),
  "010_push_generations": migrationOf(pushGenerationsMigration),
  "011_shopify": migrationOf(shopifyMigration),
  "012_staff": migrationOf(staffMigration),
  "013_shopify_inbound": migrationOf(shopifyInboundMigration),
  "015_platform_id_subjects": migrationOf(platformIdSubjectsMigration),
  "016_search": migrationOf(searchMigration),
  "017_shopify_installed_at": migrationOf(shopifyInstalledAtMigration),
  "018_catalog_deletions": migrationOf(catalogDeletionsMigration),
  "019_purchase_order_created_sort": migrationOf(purchaseOrderCreatedSortMigration),
  "021_push_skips": migrationOf(pushSkipsMigration),
  "022_reconcile_bulk_operation": migrationOf(reconcileBulkOperationMigration),
  "028_sync_bulk_operation": migrationOf(syncBulkOperationMigration),
  "031_supplier_name_lookup": migrationOf(supplierNameLookupMigration),
  "034_push_batches": migrationOf(pushBatchesMigration),
  "035_line_page_room": migrationOf(linePageRoomMigration),
  "036_write_path_costs": migrationOf(writePathCostsMigration),
};

/** Every migration's name, in the order a fresh database runs them. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(migrations).sort(compareMigrationNames);

/**
 * Names are `NNN_words`: ordered by their number, then by the rest (two branches that picked the same
 * number both run, in name order). Numbers are ordered, not contiguous (docs/decisions.md, "Migrations").
 */
export function compareMigrationNames(a: string, b: string): number {
  const number = (name: string) => Number(/^(\d+)_/.exec(name)?.[1] ?? Number.NaN);
  return number(a) - number(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Runs every migration the database has not recorded, in name order, each recorded by name in
 * `kysely_migration`. A migration that landed after a later-numbered one had already run somewhere
 * (013 went out before 012) still runs there: the runner does not insist that what is pending sorts
 * after what ran. `names` picks a subset (tests build a database as an older release left it).
 */
export async function migrateToLatest(
  db: Kysely<unknown>,
  names: readonly string[] = MIGRATION_NAMES,
): Promise<void> {
  const picked = Object.fromEntries(names.map((name) => [name, migrations[name]]));
  const provider: MigrationProvider = { getMigrations: async () => picked };
  // Name the schema explicitly: without it Kysely's Migrator finds its tables in any schema of the
  // database (e.g. another test run's) and skips creating its own.
  const current = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const migrator = new Migrator({
    db,
    provider,
    migrationTableSchema: current.rows[0].schema,
    allowUnorderedMigrations: true,
    nameComparator: compareMigrationNames,
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`migration ${failed?.migrationName ?? ""} failed: ${reason}`);
  }
}
