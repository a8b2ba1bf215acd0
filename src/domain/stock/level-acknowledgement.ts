import { type RawBuilder, sql } from "kysely";
import type { AppContext } from "../../context.ts";
import { arrayParam, type ElementType } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";
import { pairIn } from "../../db/pair-in.ts";
import type { LevelChange } from "./level-alerts.ts";
import { keyOf, type LevelDelta, type LevelKey, type LevelReport } from "./level-keys.ts";
import { pushInFlightAt } from "./pushes.ts";

/**
 * A push's acknowledgement of levels that all exist, in two statements: the rows locked in key order
 * (reading back only their ids and counts of unacknowledged movements), then one statement that
 * recomputes them in the database and writes what changed, answering only the levels whose visible
 * quantities changed (for the item alerts; usually none). The rules are levels.ts's (nextLevel,
 * refreshChunk's acknowledgement branch), written in SQL: the report adopted only while no push of the
 * level is in flight, else kept, the acknowledged deltas moved from the pending part into the platform
 * part, the count of unacknowledged movements lowered by the ones acknowledged, a dropped level
 * stocked again by a newer report, `updated_at` moved when the visible quantities or
 * `platform_updated_at` do. test/integration/level-acknowledgement.test.ts holds the two ways to the
 * same rows and events.
 *
 * Why two statements and not one: the second reads other pushes in flight (a level whose count stays
 * above zero) with a snapshot taken after the lock, so every push marked before a report the row holds
 * was stored is seen (levels.ts, step 3); in the statement that takes the lock, the snapshot is older
 * than the lock on PostgreSQL. And the in-flight read is in the second statement only when some level
 * needs it, which the counts read under the lock tell.
 *
 * Before (eighteenth session) the rows were read back whole (23 columns of up to 1,000 levels),
 * recomputed in JavaScript and written back as 21 arrays, with the in-flight read a third statement.
 * Answers null, having written nothing, when a level is missing (deleted meanwhile) or the counts
 * acknowledged here are unknown: the general path (refreshChunk) runs then.
 */
export async function acknowledgeLevels(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  keys: readonly LevelKey[],
  reports: ReadonlyMap<string, LevelReport>,
  acknowledged: ReadonlyMap<string, LevelDelta>,
  acknowledgedCounts: ReadonlyMap<string, number>,
): Promise<LevelChange[] | null> {
  const locked = await trx
    .selectFrom("inventory_levels")
    .select(["id", "inventory_item_id", "location_id", "unacknowledged"])
    .where("store_id", "=", storeId)
    .where(
      pairIn(
        "inventory_item_id",
        "location_id",
        keys.map((k) => [k.inventoryItemId, k.locationId] as const),
      ),
    )
    .orderBy("inventory_item_id")
    .orderBy("location_id")
    .forUpdate()
    .execute();
  if (locked.length !== keys.length) return null;
  const input = locked.map((row) => {
    const k = keyOf(Number(row.inventory_item_id), Number(row.location_id));
    const count = acknowledgedCounts.get(k) ?? 0;
    return {
      id: row.id,
      acked: acknowledged.get(k),
      count,
      report: reports.get(k),
      // Nothing else unacknowledged at the level: no push of it can be in flight, nothing to read.
      probe: row.unacknowledged - count !== 0,
    };
  });
  const column = (type: ElementType, pick: (row: (typeof input)[number]) => unknown) =>
    arrayParam(type, input.map(pick));
  const ids = column("bigint", (r) => r.id);
  const inFlight = input.some((r) => r.probe)
    ? sql`case when v.probe then ${pushInFlightAt(storeId, sql.ref("l.inventory_item_id"), sql.ref("l.location_id"))} else false end`
    : sql`false`;
  const now = ctx.clock.now();
  const { rows } = await sql<ChangedRow>`
    with v as (
      select * from unnest(${ids}, ${column("int", (r) => r.acked?.available ?? 0)},
        ${column("int", (r) => r.acked?.onHand ?? 0)}, ${column("int", (r) => r.acked?.incoming ?? 0)},
        ${column("int", (r) => r.count)}, ${column("bigint", (r) => r.report?.version ?? null)},
        ${column("int", (r) => r.report?.available ?? null)}, ${column("int", (r) => r.report?.onHand ?? null)},
        ${column("int", (r) => r.report?.committed ?? null)}, ${column("int", (r) => r.report?.incoming ?? null)},
        ${column("timestamptz", (r) => r.report?.updatedAt ?? null)},
        ${column("timestamptz", (r) => r.report?.readAt ?? null)}, ${column("boolean", (r) => r.probe)})
        as v(id, a_available, a_on_hand, a_incoming, a_count, r_version, r_available, r_on_hand,
          r_committed, r_incoming, r_updated_at, r_read_at, probe)
    ),
    -- Materialized, as is \`decided\`: each step below names the one before's columns several times, and
    -- inlined, every name would be that column's whole expression again (the in-flight read's
    -- subplans were copied ~100 times in a first try, 0.6-1.2 s a statement in a burst).
    cur as materialized (
      select l.id, l.inventory_item_id, l.location_id, l.available, l.on_hand, l.committed, l.incoming,
        l.platform_available, l.platform_on_hand, l.platform_committed, l.platform_incoming,
        l.platform_version, l.platform_updated_at, l.platform_read_at,
        l.reported_available, l.reported_on_hand, l.reported_committed, l.reported_incoming,
        l.reported_version, l.reported_updated_at, l.reported_read_at, l.unacknowledged, l.dropped_at,
        v.a_available, v.a_on_hand, v.a_incoming, v.a_count, v.r_version, v.r_available, v.r_on_hand,
        v.r_committed, v.r_incoming, v.r_updated_at, v.r_read_at, ${inFlight} as in_flight
      from v join inventory_levels l on l.id = v.id
    ),
    -- The report newer than the adopted platform part, and newer than the report kept as well.
    ranked as (
      select c.*, n.newer, n.newer and (c.reported_version is null or ${reportNewerThan("c.reported", true)})
        as report_newest
      from cur c
      cross join lateral (select c.r_version is not null
        and (c.platform_version is null or ${reportNewerThan("c.platform", false)}) as newer) n
    ),
    -- adopt: the newest report seen (this one or the kept one) with no push of the level in flight;
    -- hold: a push in flight, so the acknowledged change moves into the platform part and the newer
    -- report is kept. w_*: the newest report.
    decided as materialized (
      select r.*, d.adopt, r.newer and not d.adopt as hold,
        case when r.report_newest then r.r_available else coalesce(r.reported_available, 0) end as w_available,
        case when r.report_newest then r.r_on_hand else coalesce(r.reported_on_hand, 0) end as w_on_hand,
        case when r.report_newest then r.r_committed else coalesce(r.reported_committed, 0) end as w_committed,
        case when r.report_newest then r.r_incoming else coalesce(r.reported_incoming, 0) end as w_incoming,
        case when r.report_newest then r.r_version else r.reported_version end as w_version,
        case when r.report_newest then r.r_updated_at
          else coalesce(r.reported_updated_at, 'epoch'::timestamptz) end as w_updated_at,
        coalesce(case when r.report_newest then r.r_read_at else r.reported_read_at end, ${now}::timestamptz)
          as w_read_at
      from ranked r
      cross join lateral (select (r.report_newest or r.reported_version is not null) and not r.in_flight
        as adopt) d
    ),
    platform as (
      select d.*,
        case when d.adopt then d.w_available when d.hold then d.platform_available + d.a_available
          else d.platform_available end as p_available,
        case when d.adopt then d.w_on_hand when d.hold then d.platform_on_hand + d.a_on_hand
          else d.platform_on_hand end as p_on_hand,
        case when d.adopt then d.w_committed else d.platform_committed end as p_committed,
        case when d.adopt then d.w_incoming when d.hold then d.platform_incoming + d.a_incoming
          else d.platform_incoming end as p_incoming,
        case when d.adopt then d.w_version else d.platform_version end as p_version,
        case when d.adopt then d.w_updated_at else d.platform_updated_at end as p_updated_at,
        case when d.adopt then d.w_read_at else d.platform_read_at end as p_read_at,
        case when d.adopt then null when d.hold then d.w_available else d.reported_available end as k_available,
        case when d.adopt then null when d.hold then d.w_on_hand else d.reported_on_hand end as k_on_hand,
        case when d.adopt then null when d.hold then d.w_committed else d.reported_committed end as k_committed,
        case when d.adopt then null when d.hold then d.w_incoming else d.reported_incoming end as k_incoming,
        case when d.adopt then null when d.hold then d.w_version else d.reported_version end as k_version,
        case when d.adopt then null when d.hold then d.w_updated_at else d.reported_updated_at end
          as k_updated_at,
        case when d.adopt then null when d.hold then d.w_read_at else d.reported_read_at end as k_read_at,
        d.dropped_at is not null and d.report_newest as restocked
      from decided d
    ),
    -- Visible = the platform part + what is still unacknowledged (the row's pending part less what was
    -- just acknowledged).
    next as (
      select p.*,
        p.p_available + (p.available - p.platform_available - p.a_available) as n_available,
        p.p_on_hand + (p.on_hand - p.platform_on_hand - p.a_on_hand) as n_on_hand,
        p.p_committed as n_committed,
        p.p_incoming + (p.incoming - p.platform_incoming - p.a_incoming) as n_incoming,
        p.unacknowledged - p.a_count as n_unacknowledged
      from platform p
    ),
    judged as (
      select n.*, v.visible_changed,
        v.visible_changed or n.p_updated_at is distinct from n.platform_updated_at as bump
      from next n
      cross join lateral (select (n.n_available, n.n_on_hand, n.n_committed, n.n_incoming)
        is distinct from (n.available, n.on_hand, n.committed, n.incoming) as visible_changed) v
    ),
    written as (
      update inventory_levels as l set
        available = j.n_available, on_hand = j.n_on_hand, committed = j.n_committed, incoming = j.n_incoming,
        platform_available = j.p_available, platform_on_hand = j.p_on_hand,
        platform_committed = j.p_committed, platform_incoming = j.p_incoming,
        platform_version = j.p_version, platform_updated_at = j.p_updated_at, platform_read_at = j.p_read_at,
        reported_available = j.k_available, reported_on_hand = j.k_on_hand,
        reported_committed = j.k_committed, reported_incoming = j.k_incoming,
        reported_version = j.k_version, reported_updated_at = j.k_updated_at, reported_read_at = j.k_read_at,
        unacknowledged = j.n_unacknowledged,
        dropped_at = case when j.restocked then null else l.dropped_at end,
        updated_at = case when j.bump or j.restocked then ${now}::timestamptz else l.updated_at end
      from judged j
      where l.id = j.id and l.id = any(${ids})
        and (j.bump or j.restocked
          or (j.p_available, j.p_on_hand, j.p_committed, j.p_incoming, j.p_version, j.p_read_at,
            j.k_available, j.k_on_hand, j.k_committed, j.k_incoming, j.k_version, j.k_updated_at, j.k_read_at,
            j.n_unacknowledged)
          is distinct from (j.platform_available, j.platform_on_hand, j.platform_committed,
            j.platform_incoming, j.platform_version, j.platform_read_at, j.reported_available,
            j.reported_on_hand, j.reported_committed, j.reported_incoming, j.reported_version,
            j.reported_updated_at, j.reported_read_at, j.unacknowledged))
    )
    select inventory_item_id, location_id, available, on_hand, incoming, n_available, n_on_hand, n_incoming
    from judged where visible_changed
    order by inventory_item_id, location_id`.execute(trx);
  return rows.map((r) => ({
    key: { inventoryItemId: Number(r.inventory_item_id), locationId: Number(r.location_id) },
    before: { available: r.available, on_hand: r.on_hand, incoming: r.incoming },
    after: { available: r.n_available, on_hand: r.n_on_hand, incoming: r.n_incoming },
  }));
}

interface ChangedRow {
  inventory_item_id: number | string;
  location_id: number | string;
  available: number;
  on_hand: number;
  incoming: number;
  n_available: number;
  n_on_hand: number;
  n_incoming: number;
}

/**
 * reportIsNewer (level-keys.ts) in SQL: whether the report (`r_*`) is newer than the report a level
 * holds under `prefix` (`c.platform`: its adopted part; `c.reported`: its kept one, whose quantities
 * count as 0 when absent, as keptReport reads them). The caller checks that both have a version.
 */
function reportNewerThan(prefix: "c.platform" | "c.reported", orZero: boolean): RawBuilder<boolean> {
  const held = (column: string) =>
    orZero ? sql`coalesce(${sql.ref(`${prefix}_${column}`)}, 0)` : sql.ref(`${prefix}_${column}`);
  const version = sql.ref(`${prefix}_version`);
  const readAt = sql.ref(`${prefix}_read_at`);
  return sql<boolean>`(case when c.r_version <> ${version} then c.r_version > ${version}
      when c.r_read_at is null or (${readAt} is not null and c.r_read_at <= ${readAt}) then false
      else (c.r_available, c.r_on_hand, c.r_committed, c.r_incoming)
        is distinct from (${held("available")}, ${held("on_hand")}, ${held("committed")}, ${held("incoming")})
      end)`;
}
