/**
 * Where a receipt's good units go must still take stock on the platform (docs/decisions.md, "Shopify
 * webhooks and reconciliation"): a location the mirror holds inactive (deactivated or deleted there)
 * or an item's level the platform dropped (no longer stocked at that location) is refused with a 422
 * naming the entry, rather than booked and pushed to a platform that refuses it. The ledger finds
 * them in the statement that records the movements (stock/ledger.ts `refuseGone`); this names them.
 */
import { DetailCollector, validationFailed } from "../errors.ts";
import type { GoneDestination } from "../stock/index.ts";
import type { ComputedReceipt } from "./compute.ts";

export function refuseGoneDestinations(computed: ComputedReceipt, gone: readonly GoneDestination[]): never {
  const problems = new DetailCollector();
  const byKey = new Map(gone.map((g) => [`${g.inventoryItemId}:${g.locationId}`, g.gone]));
  let receiptLocationNamed = false;
  for (const line of computed.lines) {
    if (line.inventoryItemId === null || line.quantity === 0) continue;
    const what = byKey.get(`${line.inventoryItemId}:${line.locationId}`);
    if (what === undefined) continue;
    const at = line.source.kind === "line" ? `lines.${line.source.index}` : `unordered.${line.source.index}`;
    if (what === "level")
      problems.add(
        at,
        "not_stocked",
        `inventory item ${line.inventoryItemId} is no longer stocked at location ${line.locationId} on the platform`,
      );
    else if (line.locationId !== computed.locationId)
      problems.add(
        at,
        "inactive",
        `goes to location ${line.locationId}, which is no longer active on the platform`,
      );
    else if (!receiptLocationNamed) {
      // The receipt's own location is named once, on its field.
      receiptLocationNamed = true;
      problems.add(
        "location_id",
        "inactive",
        `location ${line.locationId} is no longer active on the platform: stock cannot be received there`,
      );
    }
  }
  // Every gone destination comes from one of the lines; should none match, the refusal still stands.
  if (problems.empty) problems.add("location_id", "inactive", "stock cannot be received there");
  throw validationFailed(problems.details);
}
