/** Levels by (item, location): the keys, the platform's reports and the deltas movements add. */

export interface LevelKey {
  inventoryItemId: number;
  locationId: number;
}

/**
 * A level as the platform reported it (a connector's inventory level has this shape). `version` is
 * monotonic per level: a report with a higher version is newer. `readAt`, when the connector gives
 * it, is when our read was taken (its request's start: never after the state it read): of two reports
 * of one version with different quantities, the one read later is newer (reportIsNewer).
 */
export interface LevelReport extends LevelKey {
  available: number;
  onHand: number;
  committed: number;
  incoming: number;
  version: number;
  updatedAt: Date;
  readAt?: Date | null;
}

/** A report a level holds (its adopted or kept one), as reportIsNewer compares it. */
export interface HeldReport {
  version: number;
  readAt: Date | null;
  available: number;
  onHand: number;
  committed: number;
  incoming: number;
}

/** The platform part of a level row (its adopted report); null when none was adopted yet. */
export function heldPlatformPart(row: {
  platform_version: number | string | null;
  platform_read_at: Date | null;
  platform_available: number;
  platform_on_hand: number;
  platform_committed: number;
  platform_incoming: number;
}): HeldReport | null {
  if (row.platform_version === null) return null;
  return {
    version: Number(row.platform_version),
    readAt: row.platform_read_at,
    available: row.platform_available,
    onHand: row.platform_on_hand,
    committed: row.platform_committed,
    incoming: row.platform_incoming,
  };
}

/**
 * Whether `report` is newer than `held` (a level's adopted or kept report): a higher version, or the
 * same version with other quantities and read later (Shopify's versions have whole seconds, so two
 * changes in one second share one; a report of unknown read time never wins such a tie, and an
 * adopted report of unknown read time loses it to any read). Equal quantities are no news.
 */
export function reportIsNewer(report: LevelReport, held: HeldReport): boolean {
  if (report.version !== held.version) return report.version > held.version;
  if (!report.readAt || (held.readAt && report.readAt.getTime() <= held.readAt.getTime())) return false;
  return (
    report.available !== held.available ||
    report.onHand !== held.onHand ||
    report.committed !== held.committed ||
    report.incoming !== held.incoming
  );
}

/** A level's key as map key. */
export const keyOf = (item: number, location: number) => `${item}:${location}`;

/** What one stock movement adds to the visible level of its item at its location. */
export interface LevelDelta extends LevelKey {
  available: number;
  onHand: number;
  incoming: number;
}

/** Deltas added up by level. */
export function sumByLevel(deltas: readonly LevelDelta[]): Map<string, LevelDelta> {
  const byKey = new Map<string, LevelDelta>();
  for (const d of deltas) {
    const k = keyOf(d.inventoryItemId, d.locationId);
    const sum = byKey.get(k);
    if (!sum) byKey.set(k, { ...d });
    else {
      sum.available += d.available;
      sum.onHand += d.onHand;
      sum.incoming += d.incoming;
    }
  }
  return byKey;
}

/** How many of `deltas` (one a movement) each level has. */
export function countByLevel(deltas: readonly LevelDelta[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const d of deltas) {
    const k = keyOf(d.inventoryItemId, d.locationId);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return counts;
}

/** A level's key from a row's columns (bigint columns may come back as text). */
export const levelKeyOfRow = (r: {
  inventory_item_id: number | string;
  location_id: number | string;
}): LevelKey => ({ inventoryItemId: Number(r.inventory_item_id), locationId: Number(r.location_id) });
