/**
 * A push's acknowledgement recomputes its levels in the database (stock/level-acknowledgement.ts)
 * with the rules the general refresh applies in JavaScript (stock/levels.ts, nextLevel): the report
 * adopted only while no push of the level is in flight, else kept; the acknowledged deltas moved from
 * the pending part into the platform part; two reports of one version told apart by their read times;
 * the count of unacknowledged movements lowered; a dropped level stocked again by a newer report;
 * `updated_at` moved when the visible quantities or `platform_updated_at` do; item events for the
 * crossings. For generated level states (platform part, kept report, pending movements, other pushes
 * in flight alone or in a batch, dropped or not) and reports, both ways must leave the same rows and
 * emit the same events: the acknowledgement with its counts known takes the statement, and the same
 * acknowledgement with them unknown (another worker acknowledged first) takes the general path, which
 * reads the counts and the marks from the ledger.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { sql } from "kysely";
import type { Db } from "../../src/db/database.ts";
import { type LevelDelta, type LevelReport, refreshLevels } from "../../src/domain/stock/index.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { trackedVariants } from "../helpers/factories.ts";
import { alertingDemoStore } from "../helpers/stock.ts";

const T0 = Date.parse("2026-11-01T00:00:00Z");
const at = (second: number | null) => (second === null ? null : new Date(T0 + second * 1000));

const quantity = fc.integer({ min: -2, max: 14 });
const delta = fc.record({
  available: fc.integer({ min: -6, max: 6 }),
  onHand: fc.integer({ min: -6, max: 6 }),
  incoming: fc.integer({ min: -3, max: 3 }),
});
const second = fc.option(fc.integer({ min: 0, max: 3 }));
const report = fc.record({
  version: fc.integer({ min: 0, max: 4 }),
  available: quantity,
  onHand: quantity,
  committed: fc.integer({ min: 0, max: 2 }),
  incoming: fc.integer({ min: 0, max: 4 }),
  updatedAt: fc.integer({ min: 0, max: 3 }),
  readAt: second,
});
/** A report a level already holds (adopted or kept): its version is at least 1. */
const heldReport = report.map((r) => ({ ...r, version: Math.max(1, r.version) }));
const level = fc.record({
  platform: fc.option(heldReport),
  kept: fc.option(heldReport),
  acked: fc.array(delta, { maxLength: 3 }),
  others: fc.array(fc.record({ delta, mark: fc.constantFrom("none", "alone", "batch") }), { maxLength: 2 }),
  dropped: fc.boolean(),
  // A report of the platform's level after it applied the acknowledged movements (as a push's answer
  // usually is), or any other.
  report: fc.option(fc.record({ report, afterPush: fc.boolean() })),
});
type Level = typeof level extends fc.Arbitrary<infer L> ? L : never;

describe("an acknowledgement's levels recomputed in the database, as the general refresh does", () => {
  let t: TestApp;
  let storeId: number;
  let location: number;
  let items: number[];

  before(async () => {
    t = await startTestApp();
    const { store, location: first } = await alertingDemoStore(t);
    storeId = store.id;
    location = first;
    items = (await trackedVariants(store.api)).slice(0, 3).map((v) => v.inventory_item_id);
  });
  after(() => t.close());

  /** The levels' rows as `levels` describe them, and their movements in the ledger. */
  async function arrange(trx: Db, levels: readonly Level[]): Promise<void> {
    for (const [i, l] of levels.entries()) {
      const item = items[i];
      const sum = (pick: (d: { available: number; onHand: number; incoming: number }) => number) =>
        [...l.acked, ...l.others.map((o) => o.delta)].reduce((s, d) => s + pick(d), 0);
      const p = l.platform;
      const k = l.kept;
      const platform = {
        available: p?.available ?? 0,
        onHand: p?.onHand ?? 0,
        committed: p?.committed ?? 0,
        incoming: p?.incoming ?? 0,
      };
      await sql`update stock_movements set pushed_at = ${at(0)} where store_id = ${storeId}
        and inventory_item_id = ${item} and location_id = ${location} and pushed_at is null`.execute(trx);
      await sql`insert into inventory_levels (store_id, inventory_item_id, location_id, available, on_hand,
          committed, incoming, platform_available, platform_on_hand, platform_committed, platform_incoming,
          platform_version, platform_updated_at, platform_read_at, reported_available, reported_on_hand,
          reported_committed, reported_incoming, reported_version, reported_updated_at, reported_read_at,
          unacknowledged, dropped_at, created_at, updated_at)
        values (${storeId}, ${item}, ${location}, ${platform.available + sum((d) => d.available)},
          ${platform.onHand + sum((d) => d.onHand)}, ${platform.committed},
          ${platform.incoming + sum((d) => d.incoming)}, ${platform.available}, ${platform.onHand},
          ${platform.committed}, ${platform.incoming}, ${p?.version ?? null}, ${at(p?.updatedAt ?? null)},
          ${at(p?.readAt ?? null)}, ${k?.available ?? null}, ${k?.onHand ?? null}, ${k?.committed ?? null},
          ${k?.incoming ?? null}, ${k?.version ?? null}, ${at(k?.updatedAt ?? null)}, ${at(k?.readAt ?? null)},
          ${l.acked.length + l.others.length}, ${l.dropped ? at(1) : null}, ${at(0)}, ${at(0)})
        on conflict (store_id, inventory_item_id, location_id) do update set
          available = excluded.available, on_hand = excluded.on_hand, committed = excluded.committed,
          incoming = excluded.incoming, platform_available = excluded.platform_available,
          platform_on_hand = excluded.platform_on_hand, platform_committed = excluded.platform_committed,
          platform_incoming = excluded.platform_incoming, platform_version = excluded.platform_version,
          platform_updated_at = excluded.platform_updated_at, platform_read_at = excluded.platform_read_at,
          reported_available = excluded.reported_available, reported_on_hand = excluded.reported_on_hand,
          reported_committed = excluded.reported_committed, reported_incoming = excluded.reported_incoming,
          reported_version = excluded.reported_version, reported_updated_at = excluded.reported_updated_at,
          reported_read_at = excluded.reported_read_at, unacknowledged = excluded.unacknowledged,
          dropped_at = excluded.dropped_at, updated_at = excluded.updated_at`.execute(trx);
      const movements = [
        ...l.acked.map((d) => ({ d, pushed: true, mark: "none" })),
        ...l.others.map((o) => ({ d: o.delta, pushed: false, mark: o.mark })),
      ];
      for (const m of movements) {
        const { rows } = await sql<{ id: number }>`insert into stock_movements (store_id, subject_type,
            subject_id, inventory_item_id, location_id, available_delta, on_hand_delta, incoming_delta,
            reason, pushed_at, push_sent_at)
          values (${storeId}, 'stock_adjustment', 1, ${item}, ${location}, ${m.d.available}, ${m.d.onHand},
            ${m.d.incoming}, 'correction', ${m.pushed ? at(2) : null}, ${m.mark === "alone" ? at(1) : null})
          returning id`.execute(trx);
        if (m.mark === "batch")
          await sql`insert into push_batch_movements (movement_id, store_id, batch_id, in_flight,
              inventory_item_id, location_id)
            values (${rows[0].id}, ${storeId}, nextval('push_batch_ids'), true, ${item}, ${location})`.execute(
            trx,
          );
      }
    }
  }

  /** The levels' rows and the item events after one acknowledgement of `levels`, all rolled back. */
  async function acknowledged(levels: readonly Level[], countsKnown: boolean) {
    const { db } = t.runtime.ctx;
    let outcome: unknown;
    await db
      .transaction()
      .execute(async (trx) => {
        await arrange(trx, levels);
        const { rows: last } = await sql<{ seq: number | null }>`select max(seq) as seq from events`.execute(
          trx,
        );
        const deltas: LevelDelta[] = levels.flatMap((l, i) =>
          l.acked.map((d) => ({ inventoryItemId: items[i], locationId: location, ...d })),
        );
        const reports: LevelReport[] = levels.flatMap((l, i) => {
          if (l.report === null) return [];
          const { report: r, afterPush } = l.report;
          const acked = (pick: (d: (typeof l.acked)[number]) => number) =>
            l.acked.reduce((sum, d) => sum + pick(d), 0);
          return [
            {
              inventoryItemId: items[i],
              locationId: location,
              available: afterPush ? (l.platform?.available ?? 0) + acked((d) => d.available) : r.available,
              onHand: afterPush ? (l.platform?.onHand ?? 0) + acked((d) => d.onHand) : r.onHand,
              committed: afterPush ? (l.platform?.committed ?? 0) : r.committed,
              incoming: afterPush ? (l.platform?.incoming ?? 0) + acked((d) => d.incoming) : r.incoming,
              version: r.version,
              updatedAt: at(r.updatedAt) as Date,
              readAt: at(r.readAt),
            },
          ];
        });
        await refreshLevels(
          t.runtime.ctx,
          trx,
          storeId,
          levels.flatMap((l, i) =>
            l.acked.length > 0 ? [{ inventoryItemId: items[i], locationId: location }] : [],
          ),
          reports,
          deltas,
          countsKnown,
        );
        const { rows } = await sql`select inventory_item_id, available, on_hand, committed, incoming,
            platform_available, platform_on_hand, platform_committed, platform_incoming, platform_version,
            platform_updated_at, platform_read_at, reported_available, reported_on_hand, reported_committed,
            reported_incoming, reported_version, reported_updated_at, reported_read_at, unacknowledged,
            dropped_at, updated_at
          from inventory_levels where store_id = ${storeId} and location_id = ${location}
            and inventory_item_id = any(${items.slice(0, levels.length)}::bigint[])
          order by inventory_item_id`.execute(trx);
        const { rows: events } = await sql`select name, data from events
          where seq > ${last[0].seq ?? 0} order by seq`.execute(trx);
        outcome = JSON.parse(JSON.stringify({ rows, events }));
        throw new RolledBack();
      })
      .catch((error) => {
        if (!(error instanceof RolledBack)) throw error;
      });
    return outcome;
  }

  test("the same rows and events both ways, for any level state and report", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(level, { minLength: 1, maxLength: 3 }), async (levels) => {
        assert.deepEqual(await acknowledged(levels, true), await acknowledged(levels, false));
      }),
      { numRuns: 150 },
    );
  });
});

class RolledBack extends Error {}
