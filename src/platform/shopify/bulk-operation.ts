import { PlatformPermanentError, PlatformTransientError } from "../connector.ts";
import { refuseOnUserErrors, type ShopifyClient } from "./client.ts";

const RUN = `mutation RunBulkQuery($query: String!) {
  bulkOperationRunQuery(query: $query, groupObjects: false) {
    bulkOperation { id status }
    userErrors { field message code }
  }
}`;

const POLL = `query BulkOperation($id: ID!) {
  bulkOperation(id: $id) { id status errorCode url objectCount createdAt }
}`;

const CANCEL = `mutation CancelBulkOperation($id: ID!) {
  bulkOperationCancel(id: $id) { bulkOperation { id status } userErrors { field message } }
}`;

export interface BulkOperationState {
  id: string;
  status: string;
  errorCode: string | null;
  /** The JSONL result, null until completed (and for a result with no lines). */
  url: string | null;
  objectCount: string;
  createdAt: string;
}

/** Starts a bulk query; answers the operation's GID. LIMIT_REACHED (five running) is transient. */
export async function startBulkQuery(client: ShopifyClient, query: string): Promise<string> {
  const answer = await client.graphql<{
    bulkOperationRunQuery: {
      bulkOperation: { id: string } | null;
      userErrors: Array<{ message: string; code: string | null }>;
    } | null;
  }>(RUN, { query }, 10);
  const payload = answer.data.bulkOperationRunQuery;
  if (payload?.userErrors.some((e) => e.code === "LIMIT_REACHED"))
    throw new PlatformTransientError(`Shopify runs too many bulk queries for ${client.shop} now`);
  refuseOnUserErrors("bulkOperationRunQuery", payload);
  if (!payload?.bulkOperation) throw new PlatformPermanentError("Shopify started no bulk operation");
  return payload.bulkOperation.id;
}

/**
 * Waits for a bulk operation to end, asking again after each `wait` (given the polls made so far:
 * bulk-wait.ts waits longer each time and ends at once on a bulk_operations/finish delivery). Answers it as it ended: COMPLETED, or FAILED, CANCELED, EXPIRED (the
 * caller decides whether to start another).
 */
export async function awaitBulkOperation(
  client: ShopifyClient,
  id: string,
  wait: (polls: number) => Promise<void>,
): Promise<BulkOperationState> {
  for (let polls = 1; ; polls++) {
    const operation = await readBulkOperation(client, id);
    if (!operation) throw new PlatformTransientError(`Shopify no longer knows bulk operation ${id}`);
    if (!isRunning(operation)) return operation;
    await wait(polls);
  }
}

async function readBulkOperation(client: ShopifyClient, id: string): Promise<BulkOperationState | null> {
  const answer = await client.graphql<{ bulkOperation: BulkOperationState | null }>(POLL, { id }, 1);
  return answer.data.bulkOperation;
}

const isRunning = (operation: Pick<BulkOperationState, "status">) =>
  operation.status === "CREATED" || operation.status === "RUNNING";

/**
 * Cancels a bulk operation this app started if it still runs: one whose reader died would otherwise
 * hold one of the shop's five slots until it ends by itself. Answers whether it was running. A
 * refusal means it ended between the two requests, which is what was wanted.
 */
export async function cancelIfRunning(client: ShopifyClient, id: string): Promise<boolean> {
  const operation = await readBulkOperation(client, id);
  if (!operation || !isRunning(operation)) return false;
  await client.graphql(CANCEL, { id }, 10);
  return true;
}

/** cancelIfRunning when a reader fails: its own failure is what the caller reports, not this. */
export async function cancelQuietly(client: ShopifyClient, id: string): Promise<void> {
  await cancelIfRunning(client, id).catch(() => false);
}

/**
 * Where a reader keeps the bulk operation it started and has not seen end (reconciliation: its
 * shopify_reconciliations row; the catalog sync: its shop's row). A reader killed while its operation
 * runs cancels nothing, so the next reader of the same kind finds it here and cancels it first.
 */
export interface BulkOperationKeeper {
  /** The operation an earlier reader started and did not see end (it may still run), or null. */
  unfinished(): Promise<string | null>;
  /** Told the operation's GID as soon as Shopify answers with it. */
  started(operationId: string): Promise<void>;
  /** The operation ran to its end and was read: nothing of it is left running. */
  ended(): Promise<void>;
}

/** A keeper that keeps nothing: a reader with no stored shop behind it (a test's connector). */
export const KEEPS_NOTHING: BulkOperationKeeper = {
  unfinished: async () => null,
  started: async () => {},
  ended: async () => {},
};

/**
 * Starts a bulk query and hands its GID to `read`, which waits for it and reads it: an unfinished
 * operation of an earlier reader is cancelled before (its result would be older than the new one's),
 * the new one is kept from the moment Shopify answers, and a failure in `read` cancels it (best
 * effort; a killed reader cancels nothing, which is what the keeper is for).
 */
export async function withKeptBulkQuery<T>(
  client: ShopifyClient,
  keeper: BulkOperationKeeper,
  query: string,
  read: (operationId: string) => Promise<T>,
): Promise<T> {
  const unfinished = await keeper.unfinished();
  if (unfinished !== null) await cancelIfRunning(client, unfinished);
  const id = await startBulkQuery(client, query);
  try {
    await keeper.started(id);
    const result = await read(id);
    await keeper.ended();
    return result;
  } catch (error) {
    await cancelQuietly(client, id);
    throw error;
  }
}

/** A bulk operation that did not complete: transient, the next try starts another. */
export function incomplete(operation: BulkOperationState): PlatformTransientError {
  return new PlatformTransientError(
    `Shopify's bulk operation ${operation.id} ended ${operation.status} (${operation.errorCode ?? "no error code"})`,
  );
}
