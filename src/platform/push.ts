import type { AppContext } from "../context.ts";
import type { Db } from "../db/database.ts";
import { commitWithoutWaitingForDisk } from "../db/transaction.ts";
import {
  adoptUnitCosts,
  changedUnitCosts,
  deletedInventoryItems,
  markItemsDeleted,
} from "../domain/catalog/index.ts";
import {
  assignBatches,
  type BatchedMovement,
  type CostToSend,
  costsInFlightBefore,
  dissolveBatch,
  type LevelKey,
  markMovementsPushed,
  markMovementsSent,
  markMovementsSkipped,
  markMovementsUnsent,
  movementsOfBatches,
  PUSH_JOB,
  pushStandingOf,
  refreshLevels,
  type SyncSubjectType,
  settleSyncedRecords,
  type UnpushedMovement,
  unpushedWithBatch,
  writeSyncState as writeRecordSyncState,
} from "../domain/stock/index.ts";
import { type JobLease, LeaseLostError } from "../jobs/queue.ts";
import { DeferJobError, type JobHandler, PermanentJobError } from "../jobs/worker.ts";
import { advanceMirrorPast } from "./catalog-sync.ts";
import {
  type InventoryAdjustment,
  type InventoryAdjustResult,
  type InventoryQuantityChange,
  nothingMoved,
  PlatformBusyError,
  type PlatformConnector,
  PlatformPermanentError,
  PlatformTransientError,
} from "./connector.ts";
import { type PushPayload, parsePushPayload } from "./job-payloads.ts";
import { PlatformPausedError } from "./paused.ts";
import { batchIdempotencyKey, type TakenPushes, takeWaitingPushes } from "./push-batches.ts";
import { connectorForStore } from "./registry.ts";

/**
 * The stock push worker (docs/decisions.md, "Catalog mirror and the simulated platform"). A
 * `platform.push` job carries the movements one stock-moving record wrote. They go to the platform as few ledger documents as the platform allows: consecutive
 * movements with the same reason make one document of at most MAX_DOCUMENT_CHANGES quantity changes,
 * whose idempotency key is derived from the movement ids it carries, and each document's movements are
 * acknowledged (pushed_at) together, in one transaction, right after the platform answered. A 200-line
 * adjustment is one platform call and one acknowledgement, not 200 of each.
 *
 * A worker that dies between a push and its acknowledgement leaves that document's movements
 * unacknowledged; the retry cuts the same document again (documents are cut greedily from the first
 * unacknowledged movement, and earlier documents were acknowledged whole, so the retry starts on a
 * document boundary) and sends it with the same key, and the platform answers the first result without
 * moving stock again.
 *
 * On a platform that takes it (PlatformConnector.batches: the simulated one), a push on its first
 * attempt takes the store's waiting pushes along: their movements and its own go as one batch
 * document, fixed in the database before it is sent (push-batches.ts).
 *
 * Jobs queued before documents were grouped (no `grouped` flag in the payload) push one movement per
 * document under the per-movement key they may already have used, so an upgrade in the middle of a
 * push never moves stock twice.
 *
 * platform_sync of the record: pending while anything is unacknowledged; synced once every movement
 * of the record is; failed after a permanent refusal or after the 6th attempt (backoff 10 s, 30 s,
 * 2 min, 10 min, 1 h). Every attempt sets attempted_at and error.
 */

export const PUSH_RETRY_DELAYS_MS = [10_000, 30_000, 120_000, 600_000, 3_600_000] as const;

/**
 * A push paused by its platform (PlatformPausedError: a disconnected shop) looks again this late;
 * reconnecting wakes it at once (resumePausedPushes), this only bounds a reconnect that raced it.
 */
export const PAUSED_RECHECK_MS = 300_000;

/**
 * Quantity changes per platform document. Shopify's inventoryAdjustQuantities takes 250 changes a
 * call; a movement is at most three changes (available, on_hand alone, incoming).
 */
export const MAX_DOCUMENT_CHANGES = 250;

/** Fault injection for tests, given to one app's push handler (createPushJobHandler). */
export interface PushHooks {
  /**
   * Runs just before a document is sent (its movements marked in flight); what it throws is a send
   * whose outcome the push cannot know (a timeout).
   */
  beforePush?: ((movementIds: number[]) => void | Promise<void>) | null;
  /** Runs after the platform accepted a document, before it is acknowledged. */
  afterPush?: ((movementIds: number[]) => void | Promise<void>) | null;
  /**
   * Runs when the push has read its unacknowledged movements and their batches, before it plans its
   * documents (a test holds a push there while another push's batch changes).
   */
  beforePlan?: ((movementIds: number[]) => void | Promise<void>) | null;
  /**
   * Runs just before the push commits what it sends: the movements it puts in a batch (`batch`), or
   * those it marks in flight (`mark`: its own documents, and batches sent again). A stall here is a
   * worker paused between reading the movements and deciding (its lease may run out meanwhile).
   */
  beforeDecide?: ((step: "batch" | "mark", movementIds: number[]) => void | Promise<void>) | null;
}

/** What a push reads of a movement: enough to cut, key and send documents. */
export type Movement = UnpushedMovement;

/** The key of a document of one movement (also every document of a job queued before grouping). */
export function movementIdempotencyKey(storeId: number, movementId: number): string {
  return `stockroom-${storeId}-movement-${movementId}`;
}

/**
 * The key of a document: its movements' ids, first, last and count. Documents are runs of one
 * record's sorted movement ids and records never share movements, so no two documents share a key.
 */
export function documentIdempotencyKey(storeId: number, movementIds: readonly number[]): string {
  if (movementIds.length === 1) return movementIdempotencyKey(storeId, movementIds[0]);
  const first = movementIds[0];
  const last = movementIds[movementIds.length - 1];
  return `stockroom-${storeId}-movements-${first}-${last}-${movementIds.length}`;
}

function changesOf(movement: Movement): InventoryQuantityChange[] {
  const changes: InventoryQuantityChange[] = [];
  const at = { inventoryItemId: movement.inventory_item_id, locationId: movement.location_id };
  if (movement.available_delta !== 0)
    changes.push({ name: "available", ...at, delta: movement.available_delta });
  const onHandOnly = movement.on_hand_delta - movement.available_delta;
  if (onHandOnly !== 0) changes.push({ name: "on_hand", ...at, delta: onHandOnly });
  if (movement.incoming_delta !== 0)
    changes.push({ name: "incoming", ...at, delta: movement.incoming_delta });
  return changes;
}

/** Movements (sorted by id) as one platform ledger document, under `key` (default: their ids'). */
export function documentFor(movements: readonly Movement[], key?: string): InventoryAdjustment {
  const first = movements[0];
  const references = new Set(movements.map((m) => m.reference));
  return {
    idempotencyKey:
      key ??
      documentIdempotencyKey(
        first.store_id,
        movements.map((m) => m.id),
      ),
    reason: first.reason,
    // A batch of several records' movements has no one reference (only platforms that take that batch).
    referenceDocumentUri: references.size === 1 ? first.reference : null,
    changes: movements.flatMap(changesOf),
    itemCosts: movements.flatMap((m) =>
      m.unit_cost !== null
        ? [{ inventoryItemId: m.inventory_item_id, unitCost: m.unit_cost, currency: m.unit_cost_currency }]
        : [],
    ),
  };
}

/**
 * Cuts movements (sorted by id) into documents, greedily from the first: a new document starts where
 * the reason or reference changes or the next movement would take it over `maxChanges`.
 * `batch`: several records' movements for a platform that takes them in one document; the reference
 * does not cut, and movements of one reason go together whatever their order.
 */
export function cutDocuments(
  movements: readonly Movement[],
  grouped = true,
  batch: { maxChanges: number } | null = null,
): Movement[][] {
  const maxChanges = batch?.maxChanges ?? MAX_DOCUMENT_CHANGES;
  const ordered = batch
    ? [...movements].sort((a, b) => (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : a.id - b.id))
    : movements;
  const documents: Movement[][] = [];
  let current: Movement[] = [];
  let changes = 0;
  for (const movement of ordered) {
    const size = Math.max(1, changesOf(movement).length);
    const head = current[0];
    const fits =
      grouped &&
      head !== undefined &&
      head.reason === movement.reason &&
      (batch !== null || head.reference === movement.reference) &&
      changes + size <= maxChanges;
    if (!fits && current.length > 0) {
      documents.push(current);
      current = [];
      changes = 0;
    }
    current.push(movement);
    changes += size;
  }
  if (current.length > 0) documents.push(current);
  return batch ? documents.map((d) => [...d].sort((a, b) => a.id - b.id)) : documents;
}

/** The job a push runs as: its id and attempt (a batch is only taken on a first attempt). */
export interface PushRun {
  jobId: number;
  attempts: number;
  /**
   * The worker holding the job (its claim's `locked_by`): with `attempts`, the lease every decision
   * of what is sent is fenced on (heldJobs). Every push runs under a claimed job's lease: a run of
   * one outside the worker (a test) claims it first, as the worker does.
   */
  holder: string;
  /**
   * Set by a push that failed: the in-flight marks to take off (takeMarksOff), in the transaction
   * that reschedules or fails the job (the handler's onRetry and onFinalFailure), so the job never
   * says running while they are off.
   */
  marksOff?: MarksOff | null;
}

/**
 * A document to send: its movements (by id) and the batch it is, null for one record's own; `marked`
 * when its movements were marked in flight as the batch was made (assignBatches, this run); `fresh`
 * when no earlier attempt can have sent it: a batch this run made or marked in flight whole (a
 * batch's marks all come off only when a send of it was refused having applied nothing: each job
 * failing for good takes off its own record's, and the last to fail sent the batch, marking the
 * others again), a record's own document none of whose movements an earlier send carried alone
 * (`push_key_sent_at`, kept when its job fails for good).
 */
interface PlannedDocument {
  movements: BatchedMovement[];
  batchId: number | null;
  marked: boolean;
  fresh: boolean;
}

/** Where a push failed: the document, whether the platform refused it having applied nothing. */
interface FailedDocument {
  index: number;
  refused: boolean;
  /** A refused batch of several records, to take apart. */
  dissolve: number | null;
}

/**
 * The documents that carry the job's unacknowledged movements `mine`: the batches they are in
 * already (a retry, or another push took them along), then, on a first attempt on a platform that
 * takes batches, a new batch of them and the store's waiting pushes' movements; what is left goes as
 * the record's own documents, as before batches. Answers the jobs taken along (null: none).
 */
async function planDocuments(
  ctx: AppContext,
  connector: PlatformConnector,
  payload: PushPayload,
  mine: BatchedMovement[],
  run: PushRun,
  hooks: PushHooks,
): Promise<{ documents: PlannedDocument[]; taken: TakenPushes | null }> {
  const storeId = payload.store_id;
  const built = new Map<number, BatchedMovement[]>();
  let taken: TakenPushes | null = null;
  let own = mine;
  const free = own.filter((m) => m.push_batch_id === null);
  if (connector.batches && payload.grouped && run.attempts === 1 && free.length > 0) {
    taken = await takeWaitingPushes(ctx, ctx.db, storeId, run.jobId);
    if (taken.pool.length > 0) {
      const pool = [...new Map([...free, ...taken.pool].map((m) => [m.id, m])).values()];
      const documents = cutDocuments(pool, true, connector.batches) as BatchedMovement[][];
      await hooks.beforeDecide?.(
        "batch",
        pool.map((m) => m.id),
      );
      const assigned = await assignBatches(
        ctx.db,
        storeId,
        documents.map((d) => d.map((m) => m.id)),
        { lease: leaseOf(run), mark: taken.mark, jobOf: taken.jobOf },
      );
      for (const m of pool) {
        const batchId = assigned.get(m.id);
        if (batchId === undefined) continue;
        const movements = built.get(batchId) ?? [];
        movements.push({ ...m, push_batch_id: batchId });
        built.set(batchId, movements);
      }
      // Some of the job's own went into another push's batch meanwhile: read where they are now.
      own = free.every((m) => assigned.has(m.id))
        ? own.map((m) => ({ ...m, push_batch_id: m.push_batch_id ?? assigned.get(m.id) ?? null }))
        : await unpushedWithBatch(ctx.db, storeId, payload.movement_ids);
    }
  }
  const elsewhere = new Set<number>();
  for (const m of own)
    if (m.push_batch_id !== null && !built.has(m.push_batch_id)) elsewhere.add(m.push_batch_id);
  for (const m of await movementsOfBatches(ctx.db, storeId, [...elsewhere])) {
    const batchId = m.push_batch_id as number;
    const movements = built.get(batchId) ?? [];
    movements.push(m);
    built.set(batchId, movements);
  }
  const documents: PlannedDocument[] = [...built.entries()].map(([batchId, movements]) => ({
    batchId,
    movements: movements.sort((a, b) => a.id - b.id),
    marked: !elsewhere.has(batchId),
    fresh: !elsewhere.has(batchId),
  }));
  const alone = own.filter((m) => m.push_batch_id === null);
  for (const movements of cutDocuments(alone, payload.grouped) as BatchedMovement[][])
    documents.push({ batchId: null, movements, marked: false, fresh: false });
  documents.sort((a, b) => a.movements[0].id - b.movements[0].id);
  return { documents, taken };
}

/**
 * Pushes the job's unacknowledged movements, acknowledging each document as the platform accepts it;
 * the last acknowledgement settles the record's platform_sync in the same transaction. A batch's
 * acknowledgement also settles the other records it carried and completes the jobs taken along that
 * wait for nothing more; the others go back to the queue when the push ends. Runs as the job `run`
 * holds under its lease, which every decision of what is sent is fenced on; a failure leaves the
 * marks to take off in `run.marksOff`, for the transaction that records the attempt.
 */
export async function pushMovements(
  ctx: AppContext,
  payload: PushPayload,
  run: PushRun,
  hooks: PushHooks = {},
): Promise<void> {
  const storeId = payload.store_id;
  const mine = await unpushedWithBatch(ctx.db, storeId, payload.movement_ids);
  // Nothing left to send (a retry after the last acknowledgement): only the settling may be missing.
  if (mine.length === 0) return settle(ctx, ctx.db, subjectOf(payload));
  const connector = await connectorForStore(ctx, ctx.db, storeId);
  let taken: TakenPushes | null = null;
  let documents: PlannedDocument[] = [];
  let failed: FailedDocument | null = null;
  try {
    await hooks.beforePlan?.(mine.map((m) => m.id));
    const plan = await planDocuments(ctx, connector, payload, mine, run, hooks);
    taken = plan.taken;
    documents = plan.documents;
    // Every unacknowledged movement read above goes in a document, or the push has not pushed it.
    const planned = new Set(documents.flatMap((d) => d.movements.map((m) => m.id)));
    const unplanned = mine.filter((m) => !planned.has(m.id)).map((m) => m.id);
    if (unplanned.length > 0 && (await unpushedWithBatch(ctx.db, storeId, unplanned)).length > 0)
      throw new PlatformTransientError(
        `movements ${unplanned.join(", ")} changed batch while the push was planned; they go at the next attempt`,
      );
    // Acknowledged by another push meanwhile: only the settling is left.
    if (documents.length === 0) return settle(ctx, ctx.db, subjectOf(payload));
    const toMark = documents.flatMap((d) => (d.marked ? [] : d.movements.map((m) => m.id)));
    if (toMark.length > 0) await hooks.beforeDecide?.("mark", toMark);
    // In flight from now until acknowledged: no report of their levels is adopted meanwhile (it may
    // hold them or not). A batch made by this run was marked with the batch; one sent again (a retry,
    // or another push's batch) is marked here, as a refusal may have taken its marks off.
    // Fenced on the job's lease: a run that stalled past it (its heartbeat stopped with it) and whose
    // job another worker claimed since sends nothing it had not decided before (LeaseLostError).
    const marked = await markMovementsSent(ctx.db, storeId, toMark, ctx.clock.now(), leaseOf(run));
    for (const d of documents) d.fresh ||= d.movements.every((m) => marked.has(m.id));
    const gone = await deletedInventoryItems(
      ctx.db,
      storeId,
      documents.flatMap((d) => d.movements.map((m) => m.inventory_item_id)),
    );
    for (const [index, { movements: document, batchId }] of documents.entries()) {
      const failure: FailedDocument = { index, refused: false, dissolve: null };
      failed = failure;
      // Every change goes, deleted items' too: what a call sends must not depend on when the mirror
      // learnt of a deletion, or a retry would send a key with another input than its first attempt.
      // The connector leaves out what the platform no longer has (skippedItems). Costs are not keyed
      // (setting one is idempotent by itself), so leaving out unchanged ones and deleted items' differs
      // between retries without harm.
      const whole = documentFor(
        document,
        batchId === null ? undefined : batchIdempotencyKey(storeId, batchId, document.length),
      );
      const adjustment = {
        ...whole,
        itemCosts: await costsToSend(
          ctx,
          storeId,
          document.filter((m) => !gone.has(m.inventory_item_id)),
        ),
      };
      let result: InventoryAdjustResult;
      try {
        await hooks.beforePush?.(document.map((m) => m.id));
        result =
          adjustment.changes.length === 0 && adjustment.itemCosts.length === 0
            ? { replayed: false, levels: [] }
            : await connector.adjustInventory(adjustment);
      } catch (error) {
        failure.refused = nothingMoved(error);
        const records = new Set(document.map((m) => `${m.subject_type}:${m.subject_id}`));
        // A batch an earlier send may have applied (its answer lost) stays whole whatever this send's
        // answer: its records sent alone would go under keys the platform has never seen and be
        // applied twice; under the batch's key a later send gets the first one's result.
        if (batchId === null || records.size < 2 || !failure.refused || !documents[index].fresh) throw error;
        // The platform refused a batch and moved nothing: no one record is held to that (the refusal
        // may be another record's). Each record goes again alone, this one at its next attempt; the
        // batch is taken apart below (takeMarksOff).
        failure.dissolve = batchId;
        throw new PlatformTransientError(error instanceof Error ? error.message : String(error));
      }
      const ids = document.map((m) => m.id);
      const skipped = new Set(result.skippedItems ?? []);
      await hooks.afterPush?.(ids);
      await ctx.db.transaction().execute(async (trx) => {
        // Lost on a crash of the database server, the acknowledgement is redone: the retry sends the
        // same document under the same key, and the platform answers it without moving stock again.
        await commitWithoutWaitingForDisk(trx);
        const now = ctx.clock.now();
        const acked = await markMovementsPushed(trx, storeId, ids, now, batchId !== null);
        // Another worker holding the same job (its lease ran out) acknowledged the document first.
        if (acked > 0) {
          await markMovementsSkipped(
            trx,
            storeId,
            document.filter((m) => skipped.has(m.inventory_item_id)).map((m) => m.id),
            now,
          );
          // What the platform no longer has is deleted in the mirror now, as its deletion delivery
          // would do (that delivery may be lost, and reconciliation may be minutes away).
          await markItemsDeleted(trx, storeId, result.goneItems ?? result.skippedItems ?? [], now);
          await adoptUnitCosts(trx, storeId, withVersions(adjustment.itemCosts, result), now, {
            fromPush: true,
          });
          await refreshLevels(
            ctx,
            trx,
            storeId,
            document.map((m) => ({ inventoryItemId: m.inventory_item_id, locationId: m.location_id })),
            result.levels,
            document.map((m) => ({
              inventoryItemId: m.inventory_item_id,
              locationId: m.location_id,
              available: m.available_delta,
              onHand: m.on_hand_delta,
              incoming: m.incoming_delta,
            })),
            acked === ids.length,
          );
          if (batchId !== null) await settleCarried(ctx, trx, payload, document);
        }
        // Acknowledged here or by another worker: either way these movements are on the platform.
        if (taken) await ctx.jobs.completeLeased(trx, taken.acknowledged(ids), taken.mark);
        if (index === documents.length - 1) await settle(ctx, trx, subjectOf(payload));
        // The levels and costs the platform reported for this document are adopted above: when its
        // change feed says they were all it changed, the mirror sync need not read them back (on the
        // simulated platform that read-back cost as much of the embedded database as the push).
        // Last, so on PostgreSQL the store's mirror row is locked only until the commit.
        if (acked > 0 && result.feed) await advanceMirrorPast(ctx, trx, storeId, result.feed);
      });
      failed = null;
    }
  } catch (error) {
    const off = failed && marksOffAfter(storeId, documents, failed);
    if (off && off.dissolve !== null && taken) {
      // The jobs taken along go back to the queue in the transaction that takes the batch apart, not
      // before: one handed back first could read its movements still in the batch and then find the
      // batch gone, or be claimed and send the batch (the platform taking it this time) while it is
      // taken apart, and its records would go again alone.
      const batch = documents[(failed as FailedDocument).index].movements.map((m) => m.id);
      off.release = { mark: taken.mark, ids: taken.left(), holding: taken.waitingFor(batch) };
      taken = null;
    }
    run.marksOff = off;
    throw error;
  } finally {
    // Jobs taken along that this push did not finish (it failed, or they wait for movements in
    // another batch) go back to the queue, their attempt not counted: at once, or, when its refused
    // batch is taken apart, in the transaction that does it (marksOff.release, above).
    if (taken) await ctx.jobs.releaseLeased(ctx.db, taken.left(), taken.mark).catch(() => {});
  }
}

/**
 * The item costs of a document that the platform may not hold: the last given per item (several
 * receipts of one item in a batch), less those another push out now is setting (costsInFlightBefore)
 * and, of the rest, those the mirror holds already (changedUnitCosts). Setting an unchanged cost costs
 * Shopify 10 points an item and changes nothing; receipts of one order pushed 4 at a time each sent
 * every cost again while the first was out.
 */
async function costsToSend(
  ctx: AppContext,
  storeId: number,
  document: readonly Movement[],
): Promise<InventoryAdjustment["itemCosts"]> {
  const last = new Map<number, CostToSend>();
  for (const m of document)
    if (m.unit_cost !== null)
      last.set(m.inventory_item_id, {
        inventoryItemId: m.inventory_item_id,
        movementId: m.id,
        unitCost: m.unit_cost,
        currency: m.unit_cost_currency,
      });
  const costs = [...last.values()];
  const inFlight = await costsInFlightBefore(
    ctx.db,
    storeId,
    costs,
    document.map((m) => m.id),
  );
  const otherOut = costs.filter((c) => inFlight.get(c.inventoryItemId)?.same === false);
  const unknown = costs.filter((c) => !inFlight.has(c.inventoryItemId));
  const send = new Set(
    [...otherOut, ...(await changedUnitCosts(ctx.db, storeId, unknown))].map((c) => c.inventoryItemId),
  );
  return costs
    .filter((c) => send.has(c.inventoryItemId))
    .map(({ inventoryItemId, unitCost, currency }) => ({ inventoryItemId, unitCost, currency }));
}

/** The costs a document set, each with the version the platform answered for it (if it gives one). */
function withVersions(costs: InventoryAdjustment["itemCosts"], result: InventoryAdjustResult) {
  const versions = new Map((result.costVersions ?? []).map((v) => [v.inventoryItemId, v]));
  return costs.map((c) => {
    const version = versions.get(c.inventoryItemId);
    return version ? { ...c, updatedAt: version.updatedAt, readAt: version.readAt } : c;
  });
}

/** The lease a run's decisions are fenced on. */
function leaseOf(run: PushRun): JobLease {
  return { jobId: run.jobId, holder: run.holder, attempts: run.attempts };
}

/** What a failed push takes its in-flight marks off (marksOffAfter). */
export interface MarksOff {
  storeId: number;
  /** Movements to unmark. */
  ids: number[];
  /** A refused batch of several records to take apart. */
  dissolve: number | null;
  /**
   * The jobs the push had taken along and not finished (leased under `mark`), handed back in the
   * same transaction; the batch is taken apart only if every job waiting for some of its movements
   * (`holding`) still was the push's: one claimed by another worker since (its lease ran out) may be
   * sending the batch, which then stays whole.
   */
  release?: { mark: string; ids: number[]; holding: number[] } | null;
}

/**
 * A push failed at a document: the marks come off what certainly is not on the platform, in the
 * transaction that puts the job back for its next attempt (or fails it), which refreshes those levels
 * (a report kept while they were out is adopted then, not after the retry's backoff, up to an hour).
 * That is the document itself when the platform refused it having applied nothing (a refused batch of
 * several records is taken apart), and the record's own documents after it, never sent; in both cases
 * only a document this run marked: one marked before was sent by an earlier attempt, which may have
 * been applied whatever this one's answer. A document that may have been applied (a timeout, a 5xx, a
 * lost answer) stays in flight until acknowledged; so do later batches, which another push may be
 * sending. Null when nothing comes off.
 */
function marksOffAfter(
  storeId: number,
  documents: readonly PlannedDocument[],
  failed: FailedDocument,
): MarksOff | null {
  const ids: number[] = [];
  const failing = documents[failed.index];
  if (failed.refused && failed.dissolve === null && failing.fresh)
    for (const m of failing.movements) ids.push(m.id);
  for (const d of documents.slice(failed.index + 1))
    if (d.batchId === null && d.fresh) for (const m of d.movements) ids.push(m.id);
  if (ids.length === 0 && failed.dissolve === null) return null;
  return { storeId, ids, dissolve: failed.dissolve };
}

/** Takes `off`'s marks off in `trx`; answers the levels to refresh. */
async function takeMarksOff(ctx: AppContext, trx: Db, off: MarksOff): Promise<LevelKey[]> {
  let dissolve = off.dissolve;
  if (off.release) {
    const released = new Set(await ctx.jobs.releaseLeasedIn(trx, off.release.ids, off.release.mark));
    if (!off.release.holding.every((job) => released.has(job))) dissolve = null;
  }
  const levels = dissolve === null ? [] : await dissolveBatch(trx, off.storeId, dissolve);
  levels.push(...(await markMovementsUnsent(trx, off.storeId, off.ids)));
  return levels;
}

/** The other records a batch carried: synced in one statement, or settled one by one. */
async function settleCarried(
  ctx: AppContext,
  trx: Db,
  payload: PushPayload,
  document: readonly BatchedMovement[],
): Promise<void> {
  const subjects = new Map<string, { type: SyncSubjectType; id: number }>();
  for (const m of document)
    if (m.subject_type !== payload.subject_type || m.subject_id !== payload.subject_id)
      subjects.set(`${m.subject_type}:${m.subject_id}`, { type: m.subject_type, id: m.subject_id });
  const rest = await settleSyncedRecords(trx, payload.store_id, [...subjects.values()], ctx.clock.now());
  for (const subject of rest)
    await settle(ctx, trx, { storeId: payload.store_id, subjectType: subject.type, subjectId: subject.id });
}

type Subject = { storeId: number; subjectType: SyncSubjectType; subjectId: number };

function subjectOf(payload: PushPayload): Subject {
  return { storeId: payload.store_id, subjectType: payload.subject_type, subjectId: payload.subject_id };
}

/** Records where the push left the record, now. */
function writeSyncState(
  ctx: AppContext,
  db: Db,
  subject: { storeId: number; subjectType: SyncSubjectType; subjectId: number },
  state: "pending" | "synced" | "failed",
  error: string | null,
): Promise<void> {
  return writeRecordSyncState(db, subject, state, error, ctx.clock.now());
}

/** Items a skipped-changes message names before "and more". */
const SKIPPED_ITEMS_NAMED = 5;

/** platform_sync.error of a record some of whose changes the platform could not take. */
export function skippedMessage(items: readonly number[]): string {
  const named = items.slice(0, SKIPPED_ITEMS_NAMED).join(", ");
  const more = items.length > SKIPPED_ITEMS_NAMED ? " and more" : "";
  const which = items.length === 1 ? `inventory item ${named}` : `inventory items ${named}${more}`;
  return `The platform no longer has ${which} (deleted there): those changes were not pushed. Every other change of this record reached the platform.`;
}

/**
 * After the job's last document: synced when nothing of the record is left unacknowledged; failed,
 * naming the items, when some of its changes were left out because the platform deleted their item
 * (docs/decisions.md, "Deleted products and variants").
 */
async function settle(ctx: AppContext, db: Db, subject: Subject): Promise<void> {
  const { unpushed, skippedItems: skipped } = await pushStandingOf(
    db,
    subject.storeId,
    subject.subjectType,
    subject.subjectId,
    SKIPPED_ITEMS_NAMED + 1,
  );
  if (!unpushed) {
    // Acknowledged whole, but some changes never reached the platform: it no longer has their item.
    if (skipped.length > 0) return writeSyncState(ctx, db, subject, "failed", skippedMessage(skipped));
    return writeSyncState(ctx, db, subject, "synced", null);
  }
  // A failed push job still holding movements of this record: its error is the record's.
  const failed = await ctx.jobs.lastFailedJobAbout(db, PUSH_JOB, subject.storeId, {
    type: subject.subjectType,
    id: subject.subjectId,
  });
  if (failed) return writeSyncState(ctx, db, subject, "failed", failed.last_error);
  return writeSyncState(ctx, db, subject, "pending", null);
}

export function createPushJobHandler(hooks: PushHooks = {}): JobHandler {
  /** Each running job's run, whose marksOff its hooks take off (the worker hands them the same job). */
  const runs = new WeakMap<object, PushRun>();
  /**
   * Takes the marks a failed run of `job` left off (once), handing back the jobs it took along with a
   * refused batch, in `trx` (the one that reschedules or fails the job); answers the levels to refresh.
   */
  const undo = async (ctx: AppContext, trx: Db, job: object): Promise<LevelKey[]> => {
    const marksOff = runs.get(job)?.marksOff ?? null;
    runs.delete(job);
    return marksOff ? takeMarksOff(ctx, trx, marksOff) : [];
  };
  return {
    type: PUSH_JOB,
    retryDelayMs(attempts) {
      return PUSH_RETRY_DELAYS_MS[attempts - 1] ?? null;
    },
    async run(ctx, job) {
      const payload = parsePushPayload(job.payload);
      const pushRun: PushRun = { jobId: job.id, attempts: job.attempts, holder: job.locked_by };
      runs.set(job, pushRun);
      try {
        await pushMovements(ctx, payload, pushRun, hooks);
      } catch (error) {
        // Another worker holds the job now and writes where its record stands.
        if (error instanceof LeaseLostError) throw error;
        const message = error instanceof Error ? error.message : String(error);
        const subject = {
          storeId: payload.store_id,
          subjectType: payload.subject_type,
          subjectId: payload.subject_id,
        };
        if (error instanceof PlatformPausedError) {
          // Waiting is not failing: the record stays pending, saying why, and no attempt is spent.
          await writeSyncState(ctx, ctx.db, subject, "pending", message);
          throw new DeferJobError(message, new Date(ctx.clock.now().getTime() + PAUSED_RECHECK_MS));
        }
        if (error instanceof PlatformBusyError) {
          // The platform's budget is spent: the push goes again when it has refilled, not after the
          // next backoff step, and waiting spends no attempt (a busy shop never fails a push).
          await writeSyncState(ctx, ctx.db, subject, "pending", message);
          throw new DeferJobError(message, new Date(ctx.clock.now().getTime() + error.retryAfterMs));
        }
        if (error instanceof PlatformPermanentError) throw new PermanentJobError(message);
        // Transient: the record stays pending until the next attempt (or the last one fails it).
        if (job.attempts < job.max_attempts) await writeSyncState(ctx, ctx.db, subject, "pending", message);
        throw error;
      }
    },
    async onRetry(ctx, job, trx) {
      const levels = await undo(ctx, trx, job);
      const storeId = job.store_id;
      if (levels.length > 0 && storeId !== null) await refreshLevels(ctx, trx, storeId, levels);
    },
    async onFinalFailure(ctx, job, error, trx) {
      // A payload that does not parse failed for that reason: there is no record to mark.
      let payload: PushPayload;
      try {
        payload = parsePushPayload(job.payload);
      } catch {
        runs.delete(job);
        return;
      }
      const subject = {
        storeId: payload.store_id,
        subjectType: payload.subject_type,
        subjectId: payload.subject_id,
      };
      // No push sends them now: their levels adopt the platform's reports again meanwhile, a report
      // kept while they were out at once (a document that reached the platform before the failure
      // is then counted twice until a retry acknowledges it: a level that adopted no report for the
      // days an admin may take would hide every sale on the platform). A refused batch is taken apart.
      // A movement sent alone keeps the record of its key: its document may be on the platform, and
      // an admin's retry sends it again under that key, not in a batch.
      const levels = await undo(ctx, trx, job);
      levels.push(
        ...(await markMovementsUnsent(trx, payload.store_id, payload.movement_ids, { keepKeys: true })),
      );
      if (levels.length > 0) await refreshLevels(ctx, trx, payload.store_id, levels);
      await writeSyncState(ctx, trx, subject, "failed", error);
      // e.g. the purchase order history row `platform_sync_failed`.
      for (const module of ctx.modules)
        if (module.onPlatformSyncFailed)
          await module.onPlatformSyncFailed(ctx, trx, { ...subject, error, jobId: job.id });
    },
  };
}

export const pushJobHandler = createPushJobHandler();
