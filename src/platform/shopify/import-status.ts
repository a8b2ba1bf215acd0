/**
 * Where a shop's initial import stands, from the outcome of each mirror sync: `importing` until the
 * watermark is an incremental one (every batch of the bulk operation applied), then `connected`; a
 * failed attempt while importing is the shop's `import_error` until the import ends.
 */
import type { AppContext } from "../../context.ts";
import type { SyncOutcome } from "../driver.ts";
import { findShopByStore, markShopImported, setShopImportError } from "./shops.ts";

function importFinished(watermark: string | null): boolean {
  if (watermark === null) return false;
  try {
    const parsed = JSON.parse(watermark) as Record<string, unknown>;
    return typeof parsed === "object" && parsed !== null && "since" in parsed;
  } catch {
    return false;
  }
}

export async function syncSettledForShop(
  ctx: AppContext,
  storeId: number,
  outcome: SyncOutcome,
): Promise<void> {
  const row = await findShopByStore(ctx.db, storeId);
  if (!row || row.imported_at !== null) return;
  if (outcome.error !== null) return setShopImportError(ctx.db, storeId, outcome.error.slice(0, 2000));
  if (importFinished(outcome.watermark)) await markShopImported(ctx.db, storeId, ctx.clock.now());
}
