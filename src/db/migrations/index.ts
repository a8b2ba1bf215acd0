import type { Kysely } from "kysely";
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
import { pushInFlightMigration } from "./037_push_in_flight.ts";
import { levelReadAtMigration } from "./038_level_read_at.ts";
import { pushBatchMembersMigration } from "./039_push_batch_members.ts";
import { levelUnacknowledgedMigration } from "./040_level_unacknowledged.ts";
import { mirrorSyncGenerationMigration } from "./041_mirror_sync_generation.ts";
import { pushKeySentMigration } from "./042_push_key_sent.ts";
import { levelDroppedMigration } from "./043_level_dropped.ts";
import { pushKeyAssumedMigration } from "./044_push_key_assumed.ts";
import { locationDeletedMigration } from "./045_location_deleted.ts";
import { pushInFlightLevelsMigration } from "./046_push_in_flight_levels.ts";
import { pushSkippedLocationsMigration } from "./047_push_skipped_locations.ts";
import { pushInFlightIndexesMigration } from "./048_push_in_flight_indexes.ts";
import { variantCostVersionsMigration } from "./049_variant_cost_versions.ts";
import { movementUnpushedIndexMigration } from "./050_movement_unpushed_index.ts";
import { plainIndexStatements } from "./index-builds.ts";
import {
  compareMigrationNames,
  isIndexBuilds,
  type MigrationSteps,
  runMigrations,
  type Statements,
} from "./runner.ts";

export type { Statements } from "./runner.ts";
export { compareMigrationNames } from "./runner.ts";

const stepsOf: Record<string, MigrationSteps> = {
  "001_foundation": foundationMigration,
  "002_catalog": catalogMigration,
  "003_suppliers": suppliersMigration,
  "004_purchase_orders": purchaseOrdersMigration,
  "005_stock_adjustments": stockAdjustmentsMigration,
  "006_webhooks": webhooksMigration,
  "007_receipts_payments": receiptsPaymentsMigration,
  "008_write_costs": writeCostsMigration,
  "009_sim_item_costs": simItemCostsMigration,
  "010_push_generations": pushGenerationsMigration,
  "011_shopify": shopifyMigration,
  "012_staff": staffMigration,
  "013_shopify_inbound": shopifyInboundMigration,
  "015_platform_id_subjects": platformIdSubjectsMigration,
  "016_search": searchMigration,
  "017_shopify_installed_at": shopifyInstalledAtMigration,
  "018_catalog_deletions": catalogDeletionsMigration,
  "019_purchase_order_created_sort": purchaseOrderCreatedSortMigration,
  "021_push_skips": pushSkipsMigration,
  "022_reconcile_bulk_operation": reconcileBulkOperationMigration,
  "028_sync_bulk_operation": syncBulkOperationMigration,
  "031_supplier_name_lookup": supplierNameLookupMigration,
  "034_push_batches": pushBatchesMigration,
  "035_line_page_room": linePageRoomMigration,
  "036_write_path_costs": writePathCostsMigration,
  "037_push_in_flight": pushInFlightMigration,
  "038_level_read_at": levelReadAtMigration,
  "039_push_batch_members": pushBatchMembersMigration,
  "040_level_unacknowledged": levelUnacknowledgedMigration,
  "041_mirror_sync_generation": mirrorSyncGenerationMigration,
  "042_push_key_sent": pushKeySentMigration,
  "043_level_dropped": levelDroppedMigration,
  "044_push_key_assumed": pushKeyAssumedMigration,
  "045_location_deleted": locationDeletedMigration,
  "046_push_in_flight_levels": pushInFlightLevelsMigration,
  "047_push_skipped_locations": pushSkippedLocationsMigration,
  "048_push_in_flight_indexes": pushInFlightIndexesMigration,
  "049_variant_cost_versions": variantCostVersionsMigration,
  "050_movement_unpushed_index": movementUnpushedIndexMigration,
};

/** A migration's steps by its name (tests check what migrations say). */
export function migrationSteps(name: string): MigrationSteps {
  return stepsOf[name];
}

/** Every migration's name, in the order a fresh database runs them. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(stepsOf).sort(compareMigrationNames);

/**
 * Runs every migration the database has not recorded, in name order (runner.ts). `names` picks a
 * subset (tests build a database as an older release left it).
 */
export async function migrateToLatest(
  db: Kysely<unknown>,
  names: readonly string[] = MIGRATION_NAMES,
): Promise<void> {
  await runMigrations(
    db,
    names.map((name) => ({ name, steps: stepsOf[name] })),
  );
}

/**
 * A fresh PostgreSQL schema brought to the latest migration with every statement sent in one batch
 * (one round trip, the simple query protocol) instead of one by one, recorded by the same runner in
 * the same transaction. Test apps on PostgreSQL start this way: each makes a schema of its own, and
 * ~150 round trips cost ~0.17 s of the test's CPU and seconds of wall on a loaded machine. Index
 * builds take their plain form here (a batch is one transaction, and empty tables block no one). Not
 * for a database with migrations already run (it would run them again), nor PGlite (one statement a
 * query).
 */
export async function migrateFreshSchemaInOneBatch(db: Kysely<unknown>): Promise<void> {
  // A statement may end in a line comment: each is closed on a line of its own.
  const batch = MIGRATION_NAMES.flatMap((name) => {
    const steps = stepsOf[name];
    return isIndexBuilds(steps) ? plainIndexStatements(steps) : steps;
  }).join("\n;\n");
  const [first, ...rest] = MIGRATION_NAMES;
  await runMigrations(db, [
    { name: first, steps: [batch] },
    ...rest.map((name) => ({ name, steps: [] as Statements })),
  ]);
}
