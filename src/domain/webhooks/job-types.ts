/**
 * The delivery job types and the one way a `webhooks.send` job is described, shared by the handlers
 * that enqueue retries and by redelivery and test events (service.ts).
 */
import type { EnqueueOptions } from "../../jobs/queue.ts";

export const FANOUT_JOB = "webhooks.fanout";
export const FOLD_JOB = "webhooks.fold";
export const SEND_JOB = "webhooks.send";
export const LANE_JOB = "webhooks.lane";
export const DISABLED_EMAIL_JOB = "webhooks.disabled_email";

/** Parallel sends within one fan-out or send job. */
export const JOB_CONCURRENCY = 16;

/** Infrastructure failures (database) retry the job itself; delivery failures never throw. */
export const JOB_MAX_ATTEMPTS = 50;

export interface SendPayload {
  webhook_id: number;
  /** `[event seq, attempt number]` pairs. */
  items: Array<[number, number]>;
  retry: boolean;
}

/** A `webhooks.send` job description for enqueue/enqueueMany. */
export function sendJob(
  webhookId: number,
  storeId: number,
  items: Array<[number, number]>,
  retry: boolean,
  options: EnqueueOptions = {},
): { type: string; payload: Record<string, unknown>; options: EnqueueOptions } {
  const payload: SendPayload = { webhook_id: webhookId, items, retry };
  return {
    type: SEND_JOB,
    payload: payload as unknown as Record<string, unknown>,
    options: { storeId, maxAttempts: JOB_MAX_ATTEMPTS, ...options },
  };
}
