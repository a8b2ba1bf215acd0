import { awaitBulkOperation, cancelQuietly, incomplete, startBulkQuery } from "./bulk-operation.ts";
import type { ImportDeps } from "./catalog-import.ts";
import type { ShopifyClient } from "./client.ts";
import { jsonlLines } from "./jsonl.ts";

/**
 * One bulk query run to its end and its JSONL lines read whole: an incremental read that would page
 * past Shopify's cutoff takes its rows this way (their count is what the mirror is handed at once
 * anyway). A failure on the way cancels the operation, so a failed read does not hold one of the
 * shop's five bulk slots while the sync waits to try again.
 */
export async function bulkQueryLines(
  client: ShopifyClient,
  deps: ImportDeps,
  query: string,
): Promise<Array<Record<string, unknown>>> {
  const id = await startBulkQuery(client, query);
  try {
    const operation = await awaitBulkOperation(client, id, deps.pollWait);
    if (operation.status !== "COMPLETED") throw incomplete(operation);
    const lines: Array<Record<string, unknown>> = [];
    if (operation.url === null) return lines; // nothing matched
    for await (const line of jsonlLines(deps.dispatcher, operation.url, deps.timeoutMs)) lines.push(line);
    return lines;
  } catch (error) {
    await cancelQuietly(client, id);
    throw error;
  }
}
