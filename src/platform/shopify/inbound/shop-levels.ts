import type { Dispatcher } from "undici";
import type { PlatformInventoryLevel } from "../../connector.ts";
import {
  awaitBulkOperation,
  type BulkOperationKeeper,
  incomplete,
  withKeptBulkQuery,
} from "../bulk-operation.ts";
import { LEVEL_FIELDS, type LevelNode, toLevel } from "../catalog-nodes.ts";
import type { ShopifyClient } from "../client.ts";
import { fromGid } from "../gids.ts";
import { jsonlLines } from "../jsonl.ts";

/**
 * Every level of every location (inactive ones too), as one bulk query. Not a paginated read:
 * Shopify stops paging at 25,000 objects (hasNextPage false with more to come), so a location
 * holding more levels than that would be compared only that far; and paging costs 3 points a level
 * against the shop's budget (30,000 levels: 90,000 points, 15 minutes of a Standard plan's restore
 * rate, the whole default interval), where a bulk query costs 10.
 */
export const RECONCILE_LEVELS_QUERY = `{
  locations(includeInactive: true) { edges { node { id
    inventoryLevels { edges { node { ${LEVEL_FIELDS} } } } } } }
}`;

/**
 * Reading a large result with drift repair between batches keeps its stream open longer than one
 * Admin API exchange: the download as a whole is bounded by this (the pool's idle timeout still
 * ends a stalled one).
 */
const RESULT_TIMEOUT_MS = 15 * 60_000;

export interface ShopLevelsDeps {
  dispatcher: Dispatcher;
  /** Between two polls of the running bulk operation (bulk-wait.ts: cut short by bulk_operations/finish). */
  pollWait: (polls: number) => Promise<void>;
  /** Keeps the operation's GID from its start (the pass's row), so a later pass can cancel it. */
  bulkOperations: BulkOperationKeeper;
}

/**
 * Reads the shop's levels through a bulk operation and hands them to `take` in batches of `batch`
 * as the JSONL streams in (never the whole shop in memory). A level line names its location in
 * `__parentId`; location lines are skipped. An operation that does not complete is transient; a
 * failure while it runs cancels it (best effort: a worker killed meanwhile cancels nothing, which is
 * why `started` is told its id).
 */
export async function readShopLevels(
  client: ShopifyClient,
  deps: ShopLevelsDeps,
  batch: number,
  take: (levels: PlatformInventoryLevel[]) => Promise<void>,
): Promise<void> {
  await withKeptBulkQuery(client, deps.bulkOperations, RECONCILE_LEVELS_QUERY, async (id) => {
    const operation = await awaitBulkOperation(client, id, deps.pollWait);
    if (operation.status !== "COMPLETED") throw incomplete(operation);
    if (operation.url === null) return; // no lines: no location has a level
    let pending: PlatformInventoryLevel[] = [];
    for await (const line of jsonlLines(deps.dispatcher, operation.url, RESULT_TIMEOUT_MS)) {
      const parent = typeof line.__parentId === "string" ? line.__parentId : "";
      if (!parent.startsWith("gid://shopify/Location/") || !("quantities" in line)) continue;
      pending.push(toLevel(line as unknown as LevelNode, fromGid(parent, "Location")));
      if (pending.length >= batch) {
        await take(pending);
        pending = [];
      }
    }
    if (pending.length > 0) await take(pending);
  });
}
