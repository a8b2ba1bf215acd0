import { sql } from "kysely";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { pairIn } from "../../db/pair-in.ts";
import { acknowledgeLevels } from "./level-acknowledgement.ts";
import { emitCrossings, type LevelChange } from "./level-alerts.ts";
import {
  countByLevel,
  heldPlatformPart,
  keyOf,
  type LevelDelta,
  type LevelKey,
  type LevelReport,
  reportIsNewer,
  sumByLevel,
} from "./level-keys.ts";
import { pushInFlightAt } from "./pushes.ts";

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
 * sync batch, a replayed push answer) is ignored by version; of two reports of one version with other
 * quantities (Shopify's whole seconds), the one read later wins (reportIsNewer).
 *
 * A report is adopted only while no push of its level is in flight (a movement sent, `push_sent_at` or
 * its batch row's `in_flight`, and not acknowledged): the platform may have applied that push before the report or not, so the
 * report's values cannot be told apart from it. Meanwhile an acknowledgement moves its own deltas from
 * the pending part into the platform part (visible unchanged) and the newest such report is kept
 * (`reported_*`); the refresh that finds no push of the level in flight adopts the newest report seen.
 * An acknowledgement whose report is no newer than the platform part finds its change already in it
 * (adopted with a later report) and leaves it there. So a level never shows a change twice, whatever
 * order the platform applied two pushes in and the acknowledgements commit in (docs/decisions.md,
 * "A report adopted only when no push of its level is in flight").
 *
 * Recording movements adds their deltas to the levels in one upsert (addMovementsToLevels); every
 * other change (a push acknowledged, a sync report) locks the level rows first (creating missing ones),
 * then recomputes them in bulk from the report and the unacknowledged movements (refreshLevels). Both
 * emit the item.* crossing events in the same transaction. A push's acknowledgement of levels that all
 * exist is recomputed by the database itself, with these rules written in SQL
 * (level-acknowledgement.ts; its test holds both ways to the same rows and events).
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
  platform_read_at: Date | null;
  reported_available: number | null;
  reported_on_hand: number | null;
  reported_committed: number | null;
  reported_incoming: number | null;
  reported_version: number | null;
  reported_updated_at: Date | null;
  reported_read_at: Date | null;
  unacknowledged: number;
  dropped_at: Date | null;
}

/**
 * Recomputes the mirror levels of `keys` (plus those named by `reports`), adopting each report that
 * is newer than what the mirror holds, and emits item events for the crossings. `acknowledged`: the
 * movements the platform has just accepted (already marked pushed in this transaction), when that is
 * why the levels are refreshed; `acknowledgedHere`: this transaction marked every one of them (not
 * another worker before it), so each level's count of unacknowledged movements drops by as many.
 */
export async function refreshLevels(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  keys: readonly LevelKey[],
  reports: readonly LevelReport[] = [],
  acknowledged: readonly LevelDelta[] | null = null,
  acknowledgedHere = true,
): Promise<void> {
  const acknowledgedByKey = acknowledged && {
    deltas: sumByLevel(acknowledged),
    counts: acknowledgedHere ? countByLevel(acknowledged) : null,
  };
  const reportByKey = new Map<string, LevelReport>();
  for (const r of reports) {
    const k = keyOf(r.inventoryItemId, r.locationId);
    const prev = reportByKey.get(k);
    if (!prev || reportIsNewer(r, { ...prev, readAt: prev.readAt ?? null })) reportByKey.set(k, r);
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
    const chunk = list.slice(i, i + CHUNK);
    // An acknowledgement of levels that all exist, with its counts known: recomputed in the database
    // (level-acknowledgement.ts); null when it cannot be, and the general path runs.
    const acknowledgedChanges =
      acknowledgedByKey?.counts &&
      (await acknowledgeLevels(
        ctx,
        trx,
        storeId,
        chunk,
        reportByKey,
        acknowledgedByKey.deltas,
        acknowledgedByKey.counts,
      ));
    changes.push(
      ...(acknowledgedChanges ||
        (await refreshChunk(ctx, trx, storeId, chunk, reportByKey, acknowledgedByKey))),
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
      "platform_read_at",
      "reported_available",
      "reported_on_hand",
      "reported_committed",
      "reported_incoming",
      "reported_version",
      "reported_updated_at",
      "reported_read_at",
      "unacknowledged",
      "dropped_at",
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
  acknowledgedBy: Acknowledged | null,
): Promise<LevelChange[]> {
  const acknowledged = acknowledgedBy?.deltas ?? null;
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
            platform_read_at: r ? (r.readAt ?? now) : null,
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

  // 3. What the platform has not acknowledged yet, how many movements that is, and the levels a push
  //    is in flight for. After an acknowledgement the first is what the rows held beyond the platform's
  //    part (every writer keeps visible = platform + unacknowledged) less what was just acknowledged,
  //    and the count the row's less the movements just acknowledged; a level left at none has no other
  //    push in flight, and only the others are read from the ledger. Otherwise, and when this refresh
  //    created rows, all of it is summed from the ledger. Read after the rows are locked: a push marked
  //    in flight later was sent later, so no report this refresh holds can have it; and every writer
  //    of the count (recording, acknowledging) holds the row's lock until it commits, so the count read
  //    under the lock is the committed ledger's.
  const { pending, inFlight, counts } =
    acknowledged && fresh.size === 0
      ? {
          pending: pendingAfterAcknowledgement(rows, acknowledged),
          ...(await inFlightAfterAcknowledgement(trx, storeId, rows, acknowledgedBy?.counts ?? null)),
        }
      : await unacknowledgedSums(trx, storeId, pairs);

  // 4. Recompute; write only what changed, in one statement.
  const updates: Array<LevelRow & { bump: boolean }> = [];
  const changes: LevelChange[] = [];
  // Dropped levels the platform reports again, newer than what the mirror holds: stocked there again.
  const restocked: number[] = [];
  for (const row of rows) {
    const k = keyOf(row.inventory_item_id, row.location_id);
    const report = reports.get(k);
    if (row.dropped_at !== null && report && isNewerThanHeld(row, report)) restocked.push(row.id);
    const next = nextLevel(row, report, acknowledged?.get(k), inFlight.has(k), now);
    const p = pending.get(k) ?? { available: 0, on_hand: 0, incoming: 0 };
    next.available = next.platform_available + p.available;
    next.on_hand = next.platform_on_hand + p.on_hand;
    next.committed = next.platform_committed;
    next.incoming = next.platform_incoming + p.incoming;
    next.unacknowledged = counts.get(k) ?? 0;
    const visibleChanged =
      next.available !== row.available ||
      next.on_hand !== row.on_hand ||
      next.committed !== row.committed ||
      next.incoming !== row.incoming;
    const bump = visibleChanged || next.platform_updated_at?.getTime() !== row.platform_updated_at?.getTime();
    const keptChanged =
      !sameVersion(next.platform_version, row.platform_version) ||
      next.platform_available !== row.platform_available ||
      next.platform_on_hand !== row.platform_on_hand ||
      next.platform_incoming !== row.platform_incoming ||
      !sameVersion(next.reported_version, row.reported_version) ||
      next.platform_read_at?.getTime() !== row.platform_read_at?.getTime() ||
      next.reported_read_at?.getTime() !== row.reported_read_at?.getTime() ||
      next.unacknowledged !== row.unacknowledged;
    if (bump || keptChanged) updates.push({ ...next, bump });
    if (visibleChanged && !fresh.has(k))
      changes.push({
        key: { inventoryItemId: row.inventory_item_id, locationId: row.location_id },
        before: { available: row.available, on_hand: row.on_hand, incoming: row.incoming },
        after: { available: next.available, on_hand: next.on_hand, incoming: next.incoming },
      });
  }
  if (updates.length > 0) await writeLevels(trx, updates, now);
  if (restocked.length > 0)
    await trx
      .updateTable("inventory_levels")
      .set({ dropped_at: null, updated_at: now })
      .where("id", "in", restocked)
      .execute();
  return changes;
}

/** A report newer than both the platform part and a report kept while a push was in flight. */
function isNewerThanHeld(row: LevelRow, report: LevelReport): boolean {
  const held = heldPlatformPart(row);
  const kept = keptReport(row);
  return (
    (held === null || reportIsNewer(report, held)) &&
    (kept === null || reportIsNewer(report, { ...kept, readAt: kept.readAt ?? null }))
  );
}

/**
 * A level's platform part and kept report after `report` (if any) and, on an acknowledgement, its
 * deltas `acked`; the visible columns are the caller's. `inFlight`: another push of the level is sent
 * and not acknowledged.
 */
function nextLevel(
  row: LevelRow,
  report: LevelReport | undefined,
  acked: LevelDelta | undefined,
  inFlight: boolean,
  now: Date,
): LevelRow {
  const next: LevelRow = { ...row };
  const held = heldPlatformPart(row);
  const newer = report && (held === null || reportIsNewer(report, held)) ? report : null;
  const kept = keptReport(row);
  // The newest report seen since the platform part's: this one, or one kept while a push was in flight.
  const newest =
    newer && (!kept || reportIsNewer(newer, { ...kept, readAt: kept.readAt ?? null })) ? newer : kept;
  if (newest && !inFlight) {
    // No push of the level in flight: the newest report holds every acknowledged change (each came
    // with a report at least as new) and none of the unacknowledged ones (none was sent).
    next.platform_available = newest.available;
    next.platform_on_hand = newest.onHand;
    next.platform_committed = newest.committed;
    next.platform_incoming = newest.incoming;
    next.platform_version = newest.version;
    next.platform_updated_at = newest.updatedAt;
    next.platform_read_at = newest.readAt ?? now;
    keep(next, null, now);
  } else if (newer) {
    // Another push is in flight: this report may hold it or not. The acknowledged change is on the
    // platform and not in the platform part (its report is newer than that part): it moves there.
    if (acked) {
      next.platform_available += acked.available;
      next.platform_on_hand += acked.onHand;
      next.platform_incoming += acked.incoming;
    }
    keep(next, newest, now);
  }
  // No newer report: an acknowledged change is in the platform part already (a report applied after
  // it was adopted), or never reached the platform (its item is gone there); either way it leaves the
  // pending part and adds nothing.
  return next;
}

/** Versions as the driver gives them (a bigint may come as a string) compared as numbers. */
function sameVersion(a: number | string | null, b: number | string | null): boolean {
  return a === null || b === null ? a === b : Number(a) === Number(b);
}

function keptReport(row: LevelRow): LevelReport | null {
  if (row.reported_version === null) return null;
  return {
    inventoryItemId: row.inventory_item_id,
    locationId: row.location_id,
    available: row.reported_available ?? 0,
    onHand: row.reported_on_hand ?? 0,
    committed: row.reported_committed ?? 0,
    incoming: row.reported_incoming ?? 0,
    version: Number(row.reported_version),
    updatedAt: row.reported_updated_at ?? new Date(0),
    readAt: row.reported_read_at,
  };
}

/**
 * Keeps `report` on the row (null: none). A report of unknown read time (a bulk read's) is held as
 * read `now`, when it is taken in: no later than its read, so only a read certainly taken after it
 * wins a tie with it (reportIsNewer).
 */
function keep(row: LevelRow, report: LevelReport | null, now: Date): void {
  row.reported_available = report?.available ?? null;
  row.reported_on_hand = report?.onHand ?? null;
  row.reported_committed = report?.committed ?? null;
  row.reported_incoming = report?.incoming ?? null;
  row.reported_version = report?.version ?? null;
  row.reported_updated_at = report?.updatedAt ?? null;
  row.reported_read_at = report ? (report.readAt ?? now) : null;
}

/** What an acknowledgement hands a refresh: its deltas by level, and how many movements (null: unknown). */
interface Acknowledged {
  deltas: ReadonlyMap<string, LevelDelta>;
  counts: ReadonlyMap<string, number> | null;
}

interface Pending {
  available: number;
  on_hand: number;
  incoming: number;
}

/**
 * The deltas of the store's unacknowledged movements at `pairs`, by level, and the levels among them a
 * push is in flight for.
 */
async function unacknowledgedSums(
  trx: Db,
  storeId: number,
  pairs: ReadonlyArray<readonly [number, number]>,
): Promise<Unacknowledged & { pending: Map<string, Pending> }> {
  const rows = await trx
    .selectFrom("stock_movements as m")
    .leftJoin("push_batch_movements as b", "b.movement_id", "m.id")
    .select((eb) => [
      "m.inventory_item_id",
      "m.location_id",
      eb.fn.sum<string>("m.available_delta").as("available"),
      eb.fn.sum<string>("m.on_hand_delta").as("on_hand"),
      eb.fn.sum<string>("m.incoming_delta").as("incoming"),
      sql<boolean>`bool_or(m.push_sent_at is not null or b.in_flight is true)`.as("in_flight"),
      sql<number>`count(*)::int`.as("n"),
    ])
    .where("m.store_id", "=", storeId)
    .where("m.pushed_at", "is", null)
    .where(pairIn("m.inventory_item_id", "m.location_id", pairs))
    .groupBy(["m.inventory_item_id", "m.location_id"])
    .execute();
  const pending = new Map<string, Pending>();
  const inFlight = new Set<string>();
  const counts = new Map<string, number>();
  for (const p of rows) {
    const k = keyOf(Number(p.inventory_item_id), Number(p.location_id));
    pending.set(k, {
      available: Number(p.available),
      on_hand: Number(p.on_hand),
      incoming: Number(p.incoming),
    });
    if (p.in_flight) inFlight.add(k);
    counts.set(k, Number(p.n));
  }
  return { pending, inFlight, counts };
}

/**
 * After an acknowledgement: each locked level's count of unacknowledged movements, and the levels with
 * a push in flight. A level whose count drops to zero with the movements just acknowledged has
 * nothing else unacknowledged, so nothing in flight: it is not read. For the others the count is the
 * row's less the movements just acknowledged, and their marks in flight are looked up by level
 * (levelsWithPushInFlight), not by walking their unacknowledged movements. When `acknowledgedCounts`
 * is null (another worker acknowledged some first) every level is read from the ledger, in one
 * statement per chunk, which also sets their counts again from it.
 */
async function inFlightAfterAcknowledgement(
  trx: Db,
  storeId: number,
  rows: readonly LevelRow[],
  acknowledgedCounts: ReadonlyMap<string, number> | null,
): Promise<Unacknowledged> {
  const counts = new Map<string, number>();
  const toRead: Array<readonly [number, number]> = [];
  for (const row of rows) {
    const k = keyOf(row.inventory_item_id, row.location_id);
    const left = acknowledgedCounts ? row.unacknowledged - (acknowledgedCounts.get(k) ?? 0) : null;
    if (left === 0) counts.set(k, 0);
    else toRead.push([row.inventory_item_id, row.location_id]);
  }
  if (toRead.length === 0) return { inFlight: new Set(), counts };
  if (acknowledgedCounts) {
    for (const row of rows) {
      const k = keyOf(row.inventory_item_id, row.location_id);
      if (!counts.has(k)) counts.set(k, row.unacknowledged - (acknowledgedCounts.get(k) ?? 0));
    }
    return { inFlight: await levelsWithPushInFlight(trx, storeId, toRead), counts };
  }
  const read = await levelsInFlight(trx, storeId, toRead);
  for (const [item, location] of toRead) {
    const k = keyOf(item, location);
    counts.set(k, read.counts.get(k) ?? 0);
  }
  return { inFlight: read.inFlight, counts };
}

/** Levels' counts of unacknowledged movements, and those among them with a push in flight. */
interface Unacknowledged {
  inFlight: Set<string>;
  counts: Map<string, number>;
}

/**
 * The levels among `pairs` with a movement sent to the platform and not acknowledged, and how many
 * movements each has unacknowledged.
 */
async function levelsInFlight(
  trx: Db,
  storeId: number,
  pairs: ReadonlyArray<readonly [number, number]>,
): Promise<Unacknowledged> {
  const rows = await trx
    .selectFrom("stock_movements as m")
    .select([
      "m.inventory_item_id",
      "m.location_id",
      sql<number>`count(*)::int`.as("n"),
      sql<boolean>`bool_or(m.push_sent_at is not null or exists (select 1 from push_batch_movements b
        where b.movement_id = m.id and b.in_flight))`.as("in_flight"),
    ])
    .where("m.store_id", "=", storeId)
    .where("m.pushed_at", "is", null)
    .where(pairIn("m.inventory_item_id", "m.location_id", pairs))
    .groupBy(["m.inventory_item_id", "m.location_id"])
    .execute();
  const inFlight = new Set<string>();
  const counts = new Map<string, number>();
  for (const r of rows) {
    const k = keyOf(Number(r.inventory_item_id), Number(r.location_id));
    counts.set(k, Number(r.n));
    if (r.in_flight) inFlight.add(k);
  }
  return { inFlight, counts };
}

/**
 * The levels among `pairs` with a movement sent to the platform and not acknowledged, by their marks
 * alone (pushInFlightAt: one probe a level).
 */
async function levelsWithPushInFlight(
  trx: Db,
  storeId: number,
  pairs: ReadonlyArray<readonly [number, number]>,
): Promise<Set<string>> {
  const { rows } = await sql<{ inventory_item_id: number; location_id: number }>`
    select p.item as inventory_item_id, p.location as location_id
    from unnest(${pairs.map((p) => p[0])}::bigint[], ${pairs.map((p) => p[1])}::bigint[]) as p(item, location)
    where ${pushInFlightAt(storeId, sql.ref("p.item"), sql.ref("p.location"))}`.execute(trx);
  return new Set(rows.map((r) => keyOf(Number(r.inventory_item_id), Number(r.location_id))));
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
 * VALUES list would be eighteen parameters a row), and `id = any` lets the planner fetch exactly those
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
      platform_version = v.p_version, platform_updated_at = v.p_updated_at, platform_read_at = v.p_read_at,
      reported_available = v.r_available, reported_on_hand = v.r_on_hand,
      reported_committed = v.r_committed, reported_incoming = v.r_incoming,
      reported_version = v.r_version, reported_updated_at = v.r_updated_at, reported_read_at = v.r_read_at,
      unacknowledged = v.unacknowledged,
      updated_at = case when v.bump then ${now}::timestamptz else l.updated_at end
    from unnest(${ids}::bigint[], ${column((u) => u.available)}::int[], ${column((u) => u.on_hand)}::int[],
      ${column((u) => u.committed)}::int[], ${column((u) => u.incoming)}::int[],
      ${column((u) => u.platform_available)}::int[], ${column((u) => u.platform_on_hand)}::int[],
      ${column((u) => u.platform_committed)}::int[], ${column((u) => u.platform_incoming)}::int[],
      ${column((u) => u.platform_version)}::bigint[],
      ${column((u) => u.platform_updated_at?.toISOString() ?? null)}::timestamptz[],
      ${column((u) => u.reported_available)}::int[], ${column((u) => u.reported_on_hand)}::int[],
      ${column((u) => u.reported_committed)}::int[], ${column((u) => u.reported_incoming)}::int[],
      ${column((u) => u.reported_version)}::bigint[],
      ${column((u) => u.reported_updated_at?.toISOString() ?? null)}::timestamptz[],
      ${column((u) => u.platform_read_at?.toISOString() ?? null)}::timestamptz[],
      ${column((u) => u.reported_read_at?.toISOString() ?? null)}::timestamptz[],
      ${column((u) => u.bump)}::boolean[], ${column((u) => u.unacknowledged)}::int[])
      as v(id, available, on_hand, committed, incoming, p_available, p_on_hand, p_committed, p_incoming,
        p_version, p_updated_at, r_available, r_on_hand, r_committed, r_incoming, r_version, r_updated_at,
        p_read_at, r_read_at, bump, unacknowledged)
    where l.id = v.id and l.id = any(${ids}::bigint[])`.execute(trx);
}
