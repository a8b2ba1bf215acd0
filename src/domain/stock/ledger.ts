import { type RawBuilder, sql } from "kysely";
import type { AppContext } from "../../context.ts";
import { insertRows } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";
import { type HotQuery, hotSql } from "../../db/prepared.ts";
import { type LevelsAddedRow, levelsAdded } from "./movement-levels.ts";

/** The records that move stock. */
export type SyncSubjectType = "purchase_order" | "receipt" | "stock_adjustment";

export interface MovementInput {
  inventoryItemId: number;
  locationId: number;
  /** Signed change of `available` (and of `on_hand` unless onHandDelta is given). */
  availableDelta?: number;
  onHandDelta?: number;
  incomingDelta?: number;
  /** Item unit cost to set on the platform (landed cost of a receipt), in `unitCostCurrency`. */
  unitCost?: string | null;
  unitCostCurrency?: string | null;
  reason: string;
}

/** Where a movement would take stock that the platform no longer takes (destinationsGone). */
export interface GoneDestination {
  inventoryItemId: number;
  locationId: number;
  /** `location`: inactive (deactivated or deleted there); `level`: the item no longer stocked there. */
  gone: "location" | "level";
}

/**
 * The ledger's statements by text, each run as a named prepared statement (db/prepared.ts). A text
 * depends only on which parts the caller adds and which are empty (every value is a parameter, the
 * rows one array per column), a few shapes in all; so each connection parses and analyses a ~5 KB
 * text once per shape instead of on every receipt and apply (0.4-0.8 ms of the backend's CPU each),
 * and PostgreSQL may plan it once. Past MAX_SHAPES texts (a caller whose text varied with its values)
 * the others run unnamed, as before.
 */
const prepared = new Map<string, HotQuery<unknown[], unknown>>();
const MAX_SHAPES = 32;

async function runPrepared<Row>(trx: Db, statement: RawBuilder<Row>): Promise<Row[]> {
  const compiled = statement.compile(trx);
  let named = prepared.get(compiled.sql);
  if (!named && prepared.size < MAX_SHAPES) {
    named = hotSql(`stockroom_ledger_${prepared.size + 1}`, compiled.sql, { priority: false });
    prepared.set(compiled.sql, named);
  }
  if (!named) return (await trx.executeQuery(compiled)).rows;
  return (await named.run(trx, ...compiled.parameters)) as Row[];
}

/** The job that tells the platform about recorded movements (its handler: platform/push.ts). */
export const PUSH_JOB = "platform.push";
/** How often a push is tried before its record's platform_sync stays failed. */
export const PUSH_MAX_ATTEMPTS = 6;

/**
 * The one place stock moves. Writes the movements (a signed ledger, never edited), marks the owning
 * record's platform_sync pending, and enqueues the push, all in the caller's transaction: the record is
 * final at once and the platform is told afterwards. The push job (platform/push.ts) sends them in
 * as few ledger documents as it can, each keyed by its movement ids, so a retried push never moves
 * platform stock twice.
 * Movements with every delta zero and no unit cost are dropped.
 *
 * The mirror's inventory levels of the moved items change in the same transaction (a level is the
 * platform's last report plus the movements it has not acknowledged), so GET /inventory_levels and
 * the next quantity_before see the movement at once, and item.* alert events fire here.
 *
 * All of it is one statement (a WITH of four writes), with the caller's own writes of the same
 * request (`alongside`) as further parts of it when they need nothing it returns.
 */
export async function recordStockMovements(
  ctx: AppContext,
  trx: Db,
  input: {
    storeId: number;
    subjectType: SyncSubjectType;
    subjectId: number;
    reference: string;
    movements: MovementInput[];
    /**
     * Given: the movements that move `available` or add `incoming` are checked against the mirror in
     * the ledger's own statement (no round trip of its own), and when one goes to an inactive location
     * or a level the platform dropped this is called with them, before anything else: it throws (the
     * caller's 422), and the transaction rolls the statement back. A receipt's, an adjustment's, a
     * void's (its units taken out there) and an order's incoming (expected there); not what takes
     * incoming off (a cancel, a receipt's own), which the platform dropped with the level.
     */
    refuseGone?: (gone: GoneDestination[]) => never;
    /**
     * Given when the caller's transaction holds the lock of every level the movements touch (an
     * apply's): each one's row id, by which the levels are updated instead of upserted
     * (movement-levels.ts). A level it does not know fails the write.
     */
    lockedLevelId?: (inventoryItemId: number, locationId: number) => number | undefined;
  },
  alongside: AlongsideWrites = { parts: [] },
): Promise<number[]> {
  return (await recordStockMovementsWith(ctx, trx, input, alongside)).movementIds;
}

/**
 * Other writes of the same request, run in the ledger's statement as further parts of its WITH (one
 * round trip for all): each part by its name (not one of the ledger's own: moved, synced, queued,
 * added), and the columns the statement answers from them beside the ledger's (the ids they made).
 */
export interface AlongsideWrites {
  parts: ReadonlyArray<readonly [name: string, write: RawBuilder<unknown>]>;
  columns?: RawBuilder<unknown>;
}

/** `recordStockMovements` with the caller's writes beside; answers the movement ids and their columns. */
export async function recordStockMovementsWith<Columns extends object>(
  ctx: AppContext,
  trx: Db,
  input: Parameters<typeof recordStockMovements>[2],
  alongside: AlongsideWrites,
): Promise<{ movementIds: number[]; columns: Columns }> {
  const now = ctx.clock.now();
  const rows = input.movements
    .map((m) => ({
      store_id: input.storeId,
      subject_type: input.subjectType,
      subject_id: input.subjectId,
      inventory_item_id: m.inventoryItemId,
      location_id: m.locationId,
      available_delta: m.availableDelta ?? 0,
      on_hand_delta: m.onHandDelta ?? m.availableDelta ?? 0,
      incoming_delta: m.incomingDelta ?? 0,
      unit_cost: m.unitCost ?? null,
      unit_cost_currency: m.unitCost ? (m.unitCostCurrency ?? null) : null,
      reason: m.reason,
      reference: input.reference,
      created_at: now,
    }))
    .filter(
      (r) =>
        r.available_delta !== 0 || r.on_hand_delta !== 0 || r.incoming_delta !== 0 || r.unit_cost !== null,
    );
  const named = alongside.parts.map(([name, part]) => sql`${sql.id(name)} as (${part})`);
  const theirs = alongside.columns ?? sql`1 as done`;
  if (rows.length === 0) {
    if (named.length === 0) return { movementIds: [], columns: {} as Columns };
    const { rows: answered } = await sql<Columns>`with ${sql.join(named)} select ${theirs}`.execute(trx);
    return { movementIds: [], columns: answered[0] };
  }
  const movements = insertRows(
    "stock_movements",
    rows,
    [
      ["store_id", "int", (r) => r.store_id],
      ["subject_type", "text", (r) => r.subject_type],
      ["subject_id", "int", (r) => r.subject_id],
      ["inventory_item_id", "bigint", (r) => r.inventory_item_id],
      ["location_id", "bigint", (r) => r.location_id],
      ["available_delta", "int", (r) => r.available_delta],
      ["on_hand_delta", "int", (r) => r.on_hand_delta],
      ["incoming_delta", "int", (r) => r.incoming_delta],
      ["unit_cost", "numeric", (r) => r.unit_cost],
      ["unit_cost_currency", "text", (r) => r.unit_cost_currency],
      ["reason", "text", (r) => r.reason],
      ["reference", "text", (r) => r.reference],
      ["created_at", "timestamptz", (r) => r.created_at],
    ],
    sql`returning id`,
  );
  const { storeId, subjectType, subjectId } = input;
  // The push job names the movements it sends: their ids come from the insert in the same statement.
  const pushJob = ctx.jobs.insertInStatement(
    PUSH_JOB,
    sql`jsonb_build_object('store_id', ${storeId}::int, 'subject_type', ${subjectType}::text,
      'subject_id', ${subjectId}::bigint, 'movement_ids', (select jsonb_agg(id order by id) from moved),
      'grouped', true)`,
    { storeId, maxAttempts: PUSH_MAX_ATTEMPTS },
  );
  const levels = levelsAdded(
    storeId,
    rows.map((r) => ({
      inventoryItemId: r.inventory_item_id,
      locationId: r.location_id,
      available: r.available_delta,
      onHand: r.on_hand_delta,
      incoming: r.incoming_delta,
    })),
    now,
    input.lockedLevelId,
  );
  // One statement, one round trip: the movements, the record's sync state, the push job and the levels
  // (four parts of a WITH touching four tables; none reads another's rows but the job its ids).
  const destinations = input.refuseGone
    ? sql`, ${goneDestinations(
        storeId,
        rows.filter((r) => r.available_delta !== 0 || r.incoming_delta > 0),
      )} as gone_destinations`
    : sql``;
  // The levels' count read last: a part of a WITH runs when the select first reads it (else at the
  // statement's end), and the check of the destinations above probes the levels' key index, which
  // the levels' update (no update of a level is HOT) fills with a second entry a level.
  const written = levels.written("added");
  const statement = sql<
    LevelsAddedRow & { movement_ids: number[]; gone_destinations?: GoneRow[] | null } & Columns
  >`with moved as (${movements}),
    synced as (insert into platform_sync_states
        (store_id, subject_type, subject_id, state, attempted_at, error, updated_at)
      values (${storeId}, ${subjectType}, ${subjectId}, 'pending', null, null, ${now})
      on conflict (store_id, subject_type, subject_id)
      do update set state = 'pending', error = null, updated_at = excluded.updated_at),
    queued as (${pushJob}),
    added as (${levels.upsert})${named.length > 0 ? sql`, ${sql.join(named)}` : sql``}
    select (select json_agg(id order by id) from moved) as movement_ids, ${levels.columns("added")}, ${theirs}${destinations}${written ? sql`, ${written}` : sql``}`;
  const [result] = await runPrepared(trx, statement);
  if (input.refuseGone && result.gone_destinations)
    input.refuseGone(
      result.gone_destinations.map(([item, location, gone]) => ({
        inventoryItemId: Number(item),
        locationId: Number(location),
        gone,
      })),
    );
  ctx.jobs.wakeAfterCommit();
  await levels.emitCrossings(ctx, trx, result);
  return { movementIds: result.movement_ids.map(Number), columns: result };
}

type GoneRow = [number | string, number | string, "location" | "level"];

/**
 * The same check as a movement's write (`refuseGone`), read alone: for what a preview would book, so
 * that it refuses exactly what the write refuses.
 */
export async function findGoneDestinations(
  db: Db,
  storeId: number,
  destinations: ReadonlyArray<{ inventoryItemId: number; locationId: number }>,
): Promise<GoneDestination[]> {
  if (destinations.length === 0) return [];
  const rows = destinations.map((d) => ({ inventory_item_id: d.inventoryItemId, location_id: d.locationId }));
  const { rows: found } = await sql<{
    gone: GoneRow[] | null;
  }>`select ${goneDestinations(storeId, rows)} as gone`.execute(db);
  return (found[0]?.gone ?? []).map(([item, location, gone]) => ({
    inventoryItemId: Number(item),
    locationId: Number(location),
    gone,
  }));
}

/**
 * The destinations among `rows` the platform no longer takes stock at, as a JSON array of [item,
 * location, what] (null when none), from the level and location rows as they stood before the
 * statement (a WITH's parts see its start's snapshot): the location inactive in the mirror, or the
 * level dropped (domain/stock/level-drops.ts). One lookup per row on each table's key.
 */
function goneDestinations(
  storeId: number,
  rows: ReadonlyArray<{ inventory_item_id: number; location_id: number }>,
): RawBuilder<unknown> {
  const items = rows.map((r) => r.inventory_item_id);
  const locations = rows.map((r) => r.location_id);
  return sql`(select json_agg(json_build_array(g.item, g.location, g.gone) order by g.item, g.location)
    from (select d.item, d.location, case when loc.active is false then 'location' else 'level' end as gone
      from unnest(${items}::bigint[], ${locations}::bigint[]) as d(item, location)
      left join locations loc on loc.store_id = ${storeId} and loc.id = d.location
      left join inventory_levels il on il.store_id = ${storeId} and il.inventory_item_id = d.item
        and il.location_id = d.location
      where loc.active is false or il.dropped_at is not null) as g)`;
}
