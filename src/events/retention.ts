import { sql } from "kysely";
import type { Db } from "../db/database.ts";

/**
 * Retention of the outbox: deletes events that occurred before the cutoff, `batch` rows per statement
 * so a large backlog never holds one long lock. Answers how many were deleted.
 */
export async function deleteEventsBefore(db: Db, cutoff: Date, batch = 5000): Promise<number> {
  let deleted = 0;
  for (;;) {
    const result = await sql`
      delete from events where seq in (
        select seq from events where occurred_at < ${cutoff} limit ${batch})`.execute(db);
    const n = Number(result.numAffectedRows ?? 0);
    deleted += n;
    if (n < batch) return deleted;
  }
}
