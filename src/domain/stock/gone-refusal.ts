import { DetailCollector, validationFailed } from "../errors.ts";
import type { GoneDestination } from "./ledger.ts";

/**
 * The 422 for stock a record would move where the platform no longer takes it (the ledger's
 * `refuseGone`), for a call whose body names no lines (an order's incoming, a void): the record's own
 * location on `location_id` (`inactive`), any other location (a line's own) and every dropped level
 * (`not_stocked`) on `lines`, each once, the message ending with what cannot be done there.
 */
export function refuseGoneFor(
  ownLocationId: number,
  gone: readonly GoneDestination[],
  cannot: string,
): never {
  const problems = new DetailCollector();
  const named = new Set<string>();
  for (const g of gone) {
    const [field, code, message] =
      g.gone === "level"
        ? [
            "lines",
            "not_stocked",
            `inventory item ${g.inventoryItemId} is no longer stocked at location ${g.locationId} on the platform: ${cannot}`,
          ]
        : [
            g.locationId === ownLocationId ? "location_id" : "lines",
            "inactive",
            `location ${g.locationId} is no longer active on the platform: ${cannot}`,
          ];
    if (named.has(message)) continue;
    named.add(message);
    problems.add(field, code, message);
  }
  throw validationFailed(problems.details);
}
