import { awaitBulkOperation, incomplete, KEEPS_NOTHING, withKeptBulkQuery } from "./bulk-operation.ts";
import type { ImportDeps } from "./catalog-import.ts";
import type { ShopifyClient } from "./client.ts";
import { jsonlLines } from "./jsonl.ts";

/**
 * One bulk query run to its end and its JSONL lines read whole: an incremental read that would page
 * past Shopify's cutoff takes its rows this way (their count is what the mirror is handed at once
 * anyway). The operation is kept in the shop's row while it runs (deps.bulkOperations), so a sync
 * killed meanwhile does not leave it holding one of the shop's five bulk slots: the next bulk read
 * cancels it; a failed read cancels it at once.
 */
export async function bulkQueryLines(
  client: ShopifyClient,
  deps: ImportDeps,
  query: string,
): Promise<Array<Record<string, unknown>>> {
  return withKeptBulkQuery(client, deps.bulkOperations ?? KEEPS_NOTHING, query, async (id) => {
    const operation = await awaitBulkOperation(client, id, deps.pollWait);
    if (operation.status !== "COMPLETED") throw incomplete(operation);
    const lines: Array<Record<string, unknown>> = [];
    if (operation.url === null) return lines; // nothing matched
    for await (const line of jsonlLines(deps.dispatcher, operation.url, deps.timeoutMs)) lines.push(line);
    return lines;
  });
}
