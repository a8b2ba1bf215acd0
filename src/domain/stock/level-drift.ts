import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { pairIn } from "../../db/pair-in.ts";
import { inTransaction } from "../../db/transaction.ts";
import { heldPlatformPart, keyOf, type LevelKey, type LevelReport, reportIsNewer } from "./level-keys.ts";
import { refreshLevels } from "./levels.ts";

const CHUNK = 1000;

export interface DriftRepair {
  /** Levels the platform reported. */
  checked: number;
  /** Of those, levels whose platform part the mirror held otherwise (or not at all), now adopted. */
  repaired: number;
  /**
   * Levels reported otherwise at the version the mirror holds by a report of unknown read time (a
   * bulk read), so not adopted: Shopify's times have whole seconds, and a change in the second the
   * mirror last read has its version. A read of known time settles them (reconcile.ts).
   */
  tied: LevelKey[];
}

/**
 * Reconciliation's side of the mirror: compares a full read of the platform's levels with the
 * platform part the mirror holds (not the visible level: movements not yet acknowledged are not
 * drift) and adopts every report that differs and is newer (reportIsNewer), as a sync batch would. A report no newer
 * than the mirror's is left alone: a push's read-back that landed meanwhile is fresher. Each chunk
 * commits on its own, so a long pass holds few locks at a time.
 */
export async function repairLevelDrift(
  ctx: AppContext,
  storeId: number,
  reports: readonly LevelReport[],
): Promise<DriftRepair> {
  let repaired = 0;
  const tied: LevelKey[] = [];
  for (let start = 0; start < reports.length; start += CHUNK) {
    const chunk = reports.slice(start, start + CHUNK);
    const held = await platformParts(ctx.db, storeId, chunk);
    const drifted = chunk.filter((report) => {
      const row = held.get(keyOf(report.inventoryItemId, report.locationId));
      if (!row) return true;
      const differs =
        row.platform_available !== report.available ||
        row.platform_on_hand !== report.onHand ||
        row.platform_committed !== report.committed ||
        row.platform_incoming !== report.incoming;
      if (!differs) return false;
      const part = heldPlatformPart(row);
      if (part === null) return true;
      const newer = reportIsNewer(report, part);
      if (!newer && !report.readAt && report.version === part.version)
        tied.push({ inventoryItemId: report.inventoryItemId, locationId: report.locationId });
      return newer;
    });
    if (drifted.length === 0) continue;
    await inTransaction(ctx.db, (trx) => refreshLevels(ctx, trx, storeId, [], drifted));
    repaired += drifted.length;
  }
  return { checked: reports.length, repaired, tied };
}

async function platformParts(db: Db, storeId: number, reports: readonly LevelReport[]) {
  const rows = await db
    .selectFrom("inventory_levels")
    .select([
      "inventory_item_id",
      "location_id",
      "platform_available",
      "platform_on_hand",
      "platform_committed",
      "platform_incoming",
      "platform_version",
      "platform_read_at",
    ])
    .where("store_id", "=", storeId)
    .where(
      pairIn(
        "inventory_item_id",
        "location_id",
        reports.map((r) => [r.inventoryItemId, r.locationId] as const),
      ),
    )
    .execute();
  return new Map(rows.map((row) => [keyOf(Number(row.inventory_item_id), Number(row.location_id)), row]));
}
