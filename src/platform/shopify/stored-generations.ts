import type { Db } from "../../db/database.ts";
import { advancePushGeneration, pushCallStatesOf } from "../../domain/stock/index.ts";
import type { AttemptGenerations, CallAttempt } from "./generations.ts";

/**
 * Generations kept in the database (the stock module's platform_push_generations), so a burned key
 * stays burned across restarts and worker processes. `db` is the pool, never a push's transaction:
 * an advance commits before the call goes out under the new key.
 */
export class StoredAttemptGenerations implements AttemptGenerations {
  constructor(
    private readonly db: Db,
    private readonly storeId: number,
  ) {}

  async current(documentKey: string, call: string): Promise<number> {
    return (await this.attempt(documentKey, call)).generation;
  }

  async attempt(documentKey: string, call: string): Promise<CallAttempt> {
    // Read fresh for every call: another process may have advanced the document since.
    const states = await pushCallStatesOf(this.db, this.storeId, documentKey);
    return states.get(call) ?? { generation: 0, skippedItems: [], skippedLocations: [] };
  }

  advance(
    documentKey: string,
    call: string,
    skippedItems?: readonly number[],
    skippedLocations?: readonly number[],
  ): Promise<number> {
    return advancePushGeneration(this.db, this.storeId, documentKey, call, skippedItems, skippedLocations);
  }
}
