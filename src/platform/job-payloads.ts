/**
 * The payloads of the platform jobs, read back from the jobs table. A payload without the shape its
 * job writes (edited by hand, or written by a release that no longer matches) fails the job at once
 * with PermanentJobError naming the field: retrying cannot make it valid, and `Number("x")` would
 * query with NaN.
 */
import type { SyncSubjectType } from "../domain/stock/index.ts";
import { PermanentJobError } from "../jobs/worker.ts";

type Payload = Record<string, unknown>;

export interface PushPayload {
  store_id: number;
  subject_type: SyncSubjectType;
  subject_id: number;
  movement_ids: number[];
  /** Set on every job queued since documents carry several movements (absent: one per document). */
  grouped: boolean;
}

const SUBJECT_TYPES: readonly string[] = [
  "purchase_order",
  "receipt",
  "stock_adjustment",
] satisfies SyncSubjectType[];

/** A push job's payload (`movement_ids` absent: nothing left to send, only the settling). */
export function parsePushPayload(payload: Payload): PushPayload {
  const ids = payload.movement_ids ?? [];
  if (!Array.isArray(ids)) invalid("movement_ids", "is not an array");
  return {
    store_id: positiveInteger(payload.store_id, "store_id"),
    ...parsePushSubject(payload),
    movement_ids: ids.map((id, i) => positiveInteger(id, `movement_ids.${i}`)),
    grouped: payload.grouped === true,
  };
}

/** The record a push job is about. */
export function parsePushSubject(payload: Payload): { subject_type: SyncSubjectType; subject_id: number } {
  const type = payload.subject_type;
  if (typeof type !== "string" || !SUBJECT_TYPES.includes(type))
    invalid("subject_type", "is not a stock-moving record type");
  return {
    subject_type: type as SyncSubjectType,
    subject_id: positiveInteger(payload.subject_id, "subject_id"),
  };
}

/** A sync job's payload. */
export function parseSyncPayload(payload: Payload): { store_id: number } {
  return { store_id: positiveInteger(payload.store_id, "store_id") };
}

function positiveInteger(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1)
    invalid(field, "is not a positive integer");
  return value;
}

function invalid(field: string, problem: string): never {
  throw new PermanentJobError(`invalid job payload: ${field} ${problem}`);
}
