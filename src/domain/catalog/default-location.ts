import { sql } from "kysely";
import type { Db } from "../../db/database.ts";
import type { LocationRow } from "./presenters.ts";

/**
 * Where a store's new purchase order ships to when none is named (and where PATCH `location_id: null`
 * puts it back): the store's lowest-id location that is active on the platform and not hidden in its
 * settings. The rule lives here alone; a caller reading it among other parts of one statement embeds
 * `defaultLocationIdSql` rather than writing it again (purchase orders' lookups), so the two ways of
 * reading it cannot drift apart.
 */
const RULE = "l.active and not l.hidden order by l.id limit 1";

/**
 * The default location's id as the text of a scalar subquery over `locations l`. `storeId` is the
 * statement's parameter holding the store (`$1`); `onlyIf`, a boolean parameter: when false the
 * subquery reads nothing and answers null (a part of a statement not asked for).
 */
export function defaultLocationIdSql(storeId: string, onlyIf = "true"): string {
  return `select l.id from locations l where ${onlyIf} and l.store_id = ${storeId} and ${RULE}`;
}

/** The store's default location (above), or undefined when it has none to ship to. */
export async function defaultLocation(db: Db, storeId: number): Promise<LocationRow | undefined> {
  const { rows } = await sql<LocationRow>`select l.* from locations l
    where l.store_id = ${storeId} and ${sql.raw(RULE)}`.execute(db);
  return rows[0];
}
