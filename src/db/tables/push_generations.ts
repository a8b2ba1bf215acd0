import type { ColumnType } from "kysely";
import type { GeneratedTimestamp } from "./foundation.ts";

/** A pushed document's call whose idempotency key was burned: the generation its key now carries. */
export interface PlatformPushGenerationsTable {
  store_id: number;
  /** The document's idempotency key (InventoryAdjustment.idempotencyKey). */
  document_key: string;
  /** The call's name within the document: quantity name and part, e.g. `available` or `available.2`. */
  call: string;
  /** At least 1 (no row is generation 0). */
  generation: number;
  /** Items this generation's input leaves out: Shopify no longer has them (migration 021). */
  skipped_items: ColumnType<
    Array<number | string>,
    Array<number | string> | undefined,
    Array<number | string>
  >;
  /**
   * Locations whose take-off changes (a negative delta) this generation's input leaves out: Shopify
   * no longer has them (migration 047).
   */
  skipped_locations: ColumnType<
    Array<number | string>,
    Array<number | string> | undefined,
    Array<number | string>
  >;
  updated_at: GeneratedTimestamp;
}

export interface PushGenerationsTables {
  platform_push_generations: PlatformPushGenerationsTable;
}
