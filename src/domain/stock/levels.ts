import { sql } from "kysely";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { pairIn } from "../../db/pair-in.ts";
import { emitCrossings, type LevelChange } from "./level-alerts.ts";
import { keyOf, type LevelDelta, type LevelKey, type LevelReport, sumByLevel } from "./level-keys.ts";

/**
 * The mirror's inventory levels, kept right at every moment:
 *
 *   visible level = the level the platform last reported (highest version seen, from the sync feed or
 *                   from the answer to one of our pushes)
 *                 + the deltas of this store's stock movements the platform has not acknowledged yet.
 *
 * So a receipt or an applied adjustment shows in GET /inventory_levels (and in the next
 * quantity_before) in the same transaction that records it; a sale on the platform shows once the
 * sync brings it; and a push acknowledged by the platform changes nothing visible (its delta moves
 * from "pending" into the platform part). A report older than what the mirror already holds (a late
 * sync batch, a replayed push answer) is ignored by version, so nothing is counted twice for long: a
 * sync that reads a level the platform changed for a push not yet acknowledged counts that delta
 * twice only until the acknowledgement, which lands within the same push job.
 *
 * Recording movements adds their deltas to the levels in one upsert (addMovementsToLevels); every
 * other change (a push acknowledged, a sync report) locks the level rows first (creating missing ones),
 * then recomputes them in bulk from the report and the unacknowledged movements (refreshLevels). Both
 * emit the item.* crossing events in the same transaction.
 */

const CHUNK = 1000;

interface LevelRow {
  id: number;
  inventory_item_id: number;
  location_id: number;
  available: number;
  on_hand: number;
  committed: number;
  incoming: number;
  platform_available: number;
  platform_on_hand: number;
  platform_committed: number;
  platform_incoming: number;
  platform_version: number | null;
  platform_updated_at: Date | null;
}

/**
 * Recomputes the mirror levels of `keys` (plus those named by `reports`), adopting each report that
 * is newer than what the mirror holds, and emits item events for the crossings. `acknowledged`: the
 * movements the platform has just accepted (already marked pushed in this transaction), when that is
 * why the levels are refreshed.
 */
export async function refreshLevels(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  keys: readonly LevelKey[],
  reports: readonly LevelReport[] = [],
  acknowledged: readonly LevelDelta[] | null = null,
): Promise<void> {
  const acknowledgedByKey = acknowledged && sumByLevel(acknowledged);
  const reportByKey = new Map<string, LevelReport>();
  for (const r of reports) {
    const k = keyOf(r.inventoryItemId, r.locationId);
    const prev = reportByKey.get(k);
    if (!prev || r.version > prev.version) reportByKey.set(k, r);
  }
  const all = new Map<string, LevelKey>();
  for (const k of keys) all.set(keyOf(k.inventoryItemId, k.locationId), k);
  for (const r of reportByKey.values())
    all.set(keyOf(r.inventoryItemId, r.locationId), {
      inventoryItemId: r.inventoryItemId,
      locationId: r.locationId,
    });
  // One lock order for every writer (sorted keys, rows locked in that order), so two transactions
  // touching the same levels wait for each other instead of deadlocking.
  const list = [...all.values()].sort(
    (x, y) => x.inventoryItemId - y.inventoryItemId || x.locationId - y.locationId,
  );
  const changes: LevelChange[] = [];
  for (let i = 0; i < list.length; i += CHUNK) {
    changes.push(
      ...(await refreshChunk(ctx, trx, storeId, list.slice(i, i + CHUNK), reportByKey, acknowledgedByKey)),
    );
  }
  if (changes.length > 0) await emitCrossings(ctx, trx, storeId, changes);
}

/**
 * The level rows of `pairs`, locked, in (item, location) order: one lock order for every writer, so
 * two transactions touching the same levels wait for each other instead of deadlocking.
 */
function lockLevelRows(
  trx: Db,
  storeId: number,
  pairs: ReadonlyArray<readonly [number, number]>,
): Promise<LevelRow[]> {
  return trx
    .selectFrom("inventory_levels")
    .select([
      "id",
      "inventory_item_id",
      "location_id",
      "available",
      "on_hand",
      "committed",
      "incoming",
      "platform_available",
      "platform_on_hand",
      "platform_committed",
      "platform_incoming",
      "platform_version",
      "platform_updated_at",
    ])
    .where("store_id", "=", storeId)
    .where(pairIn("inventory_item_id", "location_id", pairs))
    .orderBy("inventory_item_id")
    .orderBy("location_id")
    .forUpdate()
    .execute();
}

async function refreshChunk(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  keys: LevelKey[],
  reports: Map<string, LevelReport>,
  acknowledged: ReadonlyMap<string, LevelDelta> | null,
): Promise<LevelChange[]> {
  const now = ctx.clock.now();
  const pairs = keys.map((k) => [k.inventoryItemId, k.locationId] as const);
  // 1. Lock and read what the mirror holds now.
  const rows = await lockLevelRows(trx, storeId, pairs);
  // 2. Create the missing rows, straight from the platform's report when there is one, and lock them
  //    too (a row another transaction created meanwhile is locked, not created twice).
  const fresh = new Set<string>();
  const held = new Set(rows.map((r) => keyOf(r.inventory_item_id, r.location_id)));
  const missing = keys.filter((k) => !held.has(keyOf(k.inventoryItemId, k.locationId)));
  if (missing.length > 0) {
    const inserted = await trx
      .insertInto("inventory_levels")
      .values(
        missing.map((k) => {
          const r = reports.get(keyOf(k.inventoryItemId, k.locationId));
          return {
            store_id: storeId,
            inventory_item_id: k.inventoryItemId,
            location_id: k.locationId,
            available: r?.available ?? 0,
            on_hand: r?.onHand ?? 0,
            committed: r?.committed ?? 0,
            incoming: r?.incoming ?? 0,
            platform_available: r?.available ?? 0,
            platform_on_hand: r?.onHand ?? 0,
            platform_committed: r?.committed ?? 0,
            platform_incoming: r?.incoming ?? 0,
            platform_version: r?.version ?? null,
            platform_updated_at: r?.updatedAt ?? null,
            created_at: now,
            updated_at: now,
          };
        }),
      )
      .onConflict((oc) => oc.columns(["store_id", "inventory_item_id", "location_id"]).doNothing())
      .returning(["inventory_item_id", "location_id"])
      .execute();
    for (const r of inserted) fresh.add(keyOf(r.inventory_item_id, r.location_id));
    rows.push(
      ...(await lockLevelRows(
        trx,
        storeId,
        missing.map((k) => [k.inventoryItemId, k.locationId] as const),
      )),
    );
  }

  // 3. What the platform has not acknowledged yet. After an acknowledgement it is what the rows held
  //    beyond the platform's part (every writer keeps visible = platform + unacknowledged) less what
  //    was just acknowledged; otherwise, and when this refresh created rows, summed from the ledger.
  const pending =
    acknowledged && fresh.size === 0
      ? pendingAfterAcknowledgement(rows, acknowledged)
      : await unacknowledgedSums(trx, storeId, pairs);

  // 4. Recompute; write only what changed, in one statement.
  const updates: Array<LevelRow & { bump: boolean }> = [];
  const changes: LevelChange[] = [];
  for (const row of rows) {
    const k = keyOf(row.inventory_item_id, row.location_id);
    const next: LevelRow = { ...row };
    const report = reports.get(k);
    if (report && (row.platform_version === null || report.version > row.platform_version)) {
      next.platform_available = report.available;
      next.platform_on_hand = report.onHand;
      next.platform_committed = report.committed;
      next.platform_incoming = report.incoming;
      next.platform_version = report.version;
      next.platform_updated_at = report.updatedAt;
    }
    const p = pending.get(k) ?? { available: 0, on_hand: 0, incoming: 0 };
    next.available = next.platform_available + p.available;
    next.on_hand = next.platform_on_hand + p.on_hand;
    next.committed = next.platform_committed;
    next.incoming = next.platform_incoming + p.incoming;
    const visibleChanged =
      next.available !== row.available ||
      next.on_hand !== row.on_hand ||
      next.committed !== row.committed ||
      next.incoming !== row.incoming;
    const bump = visibleChanged || next.platform_updated_at?.getTime() !== row.platform_updated_at?.getTime();
    const platformChanged = next.platform_version !== row.platform_version;
    if (bump || platformChanged) updates.push({ ...next, bump });
    if (visibleChanged && !fresh.has(k))
      changes.push({
        key: { inventoryItemId: row.inventory_item_id, locationId: row.location_id },
        before: { available: row.available, on_hand: row.on_hand, incoming: row.incoming },
        after: { available: next.available, on_hand: next.on_hand, incoming: next.incoming },
      });
  }
  if (updates.length > 0) await writeLevels(trx, updates, now);
  return changes;
}

interface Pending {
  available: number;
  on_hand: number;
  incoming: number;
}

/** The deltas of the store's unacknowledged movements at `pairs`, by level. */
async function unacknowledgedSums(
  trx: Db,
  storeId: number,
  pairs: ReadonlyArray<readonly [number, number]>,
): Promise<Map<string, Pending>> {
  const rows = await trx
    .selectFrom("stock_movements")
    .select((eb) => [
      "inventory_item_id",
      "location_id",
      eb.fn.sum<string>("available_delta").as("available"),
      eb.fn.sum<string>("on_hand_delta").as("on_hand"),
      eb.fn.sum<string>("incoming_delta").as("incoming"),
    ])
    .where("store_id", "=", storeId)
    .where("pushed_at", "is", null)
    .where(pairIn("inventory_item_id", "location_id", pairs))
    .groupBy(["inventory_item_id", "location_id"])
    .execute();
  return new Map(
    rows.map((p) => [
      keyOf(p.inventory_item_id, p.location_id),
      { available: Number(p.available), on_hand: Number(p.on_hand), incoming: Number(p.incoming) },
    ]),
  );
}

/** Unacknowledged deltas of locked rows once `acknowledged` (summed by level) left them. */
function pendingAfterAcknowledgement(
  rows: readonly LevelRow[],
  acknowledged: ReadonlyMap<string, LevelDelta>,
): Map<string, Pending> {
  const pending = new Map<string, Pending>();
  for (const row of rows) {
    const k = keyOf(row.inventory_item_id, row.location_id);
    const acked = acknowledged.get(k);
    pending.set(k, {
      available: row.available - row.platform_available - (acked?.available ?? 0),
      on_hand: row.on_hand - row.platform_on_hand - (acked?.onHand ?? 0),
      incoming: row.incoming - row.platform_incoming - (acked?.incoming ?? 0),
    });
  }
  return pending;
}

/**
 * One statement for every changed row, by primary key. The rows come as one array per column (a
 * VALUES list would be twelve parameters a row), and `id = any` lets the planner fetch exactly those
 * rows by key instead of hash-joining the list against every level of the store. The ids are of rows
 * this transaction has just locked for `storeId`, so they need no store condition (one would steer the
 * planner to the store's paging index).
 */
async function writeLevels(
  trx: Db,
  updates: ReadonlyArray<LevelRow & { bump: boolean }>,
  now: Date,
): Promise<void> {
  const column = <T>(pick: (u: LevelRow & { bump: boolean }) => T): T[] => updates.map(pick);
  const ids = column((u) => u.id);
  await sql`
    update inventory_levels as l set
      available = v.available, on_hand = v.on_hand, committed = v.committed, incoming = v.incoming,
      platform_available = v.p_available, platform_on_hand = v.p_on_hand,
      platform_committed = v.p_committed, platform_incoming = v.p_incoming,
      platform_version = v.p_version, platform_updated_at = v.p_updated_at,
      updated_at = case when v.bump then ${now}::timestamptz else l.updated_at end
    from unnest(${ids}::bigint[], ${column((u) => u.available)}::int[], ${column((u) => u.on_hand)}::int[],
      ${column((u) => u.committed)}::int[], ${column((u) => u.incoming)}::int[],
      ${column((u) => u.platform_available)}::int[], ${column((u) => u.platform_on_hand)}::int[],
      ${column((u) => u.platform_committed)}::int[], ${column((u) => u.platform_incoming)}::int[],
      ${column((u) => u.platform_version)}::bigint[],
      ${column((u) => u.platform_updated_at?.toISOString() ?? null)}::timestamptz[],
      ${column((u) => u.bump)}::boolean[])
      as v(id, available, on_hand, committed, incoming, p_available, p_on_hand, p_committed, p_incoming,
        p_version, p_updated_at, bump)
    where l.id = v.id and l.id = any(${ids}::bigint[])`.execute(trx);
}
