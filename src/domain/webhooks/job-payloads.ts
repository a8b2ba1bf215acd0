/**
 * The payloads of the delivery jobs, read back from the jobs table. A payload that does not have the
 * shape its job writes (edited by hand, or written by a release that no longer matches) fails the job
 * at once with PermanentJobError: retrying cannot make it valid, and guessing (`Number("x")` is NaN)
 * would query with nonsense.
 */
import { PermanentJobError } from "../../jobs/worker.ts";
import type { FoldPayload } from "./fold-job.ts";
import type { SendPayload } from "./job-types.ts";

type Payload = Record<string, unknown>;

export function parseFanoutPayload(payload: Payload): { seq: number } {
  return { seq: positiveInteger(payload, "seq") };
}

export function parseFoldPayload(payload: Payload): FoldPayload {
  return {
    seq: positiveInteger(payload, "seq"),
    store_id: positiveInteger(payload, "store_id"),
    subject_type: text(payload, "subject_type"),
    subject_id: positiveInteger(payload, "subject_id"),
    name: text(payload, "name"),
  };
}

export function parseSendPayload(payload: Payload): SendPayload {
  const items = payload.items;
  if (!Array.isArray(items) || items.length === 0) invalid("items", "is not a non-empty array");
  const pairs = items.map((item, i): [number, number] => {
    if (!Array.isArray(item) || item.length !== 2) invalid(`items.${i}`, "is not a [seq, attempt] pair");
    return [positive(item[0], `items.${i}.0`), positive(item[1], `items.${i}.1`)];
  });
  if (typeof payload.retry !== "boolean") invalid("retry", "is not a boolean");
  return { webhook_id: positiveInteger(payload, "webhook_id"), items: pairs, retry: payload.retry };
}

export function parseLanePayload(payload: Payload): { store_id: number } {
  return { store_id: positiveInteger(payload, "store_id") };
}

export function parseDisabledEmailPayload(payload: Payload): { webhook_id: number } {
  return { webhook_id: positiveInteger(payload, "webhook_id") };
}

function positiveInteger(payload: Payload, key: string): number {
  return positive(payload[key], key);
}

function positive(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1)
    invalid(field, "is not a positive integer");
  return value;
}

function text(payload: Payload, key: string): string {
  const value = payload[key];
  if (typeof value !== "string" || value === "") invalid(key, "is not a non-empty string");
  return value;
}

function invalid(field: string, problem: string): never {
  throw new PermanentJobError(`invalid job payload: ${field} ${problem}`);
}
