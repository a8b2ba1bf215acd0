/**
 * Stock levels as a person reads them: each level with its item and location named and the alert rules
 * that apply to it, searchable by the starts of words of the item's title, SKU or barcode (the
 * variants_search index of migration 016, as /v2/variants searches), and narrowed to the levels
 * at or below the store's low-stock threshold or the item's reorder point (the lines the item alerts
 * use: on hand for low stock, available plus incoming for the reorder point). Keyset-paged like every
 * list, oldest update first.
 */

import { sql } from "kysely";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { keysetPage, type Page, type PageRequest } from "../../db/keyset-paging.ts";
import { prefixQuery, searchWords } from "../../db/text-search.ts";
import { listedLevel } from "./level-drops.ts";

export interface StockLevelFilters {
  /** Words that must each start a word (any case) of the item's product title, variant title, SKU or barcode. */
  q?: string;
  location_id?: number;
  /** Only these items (at most 250). */
  inventory_item_ids?: number[];
  /** Only levels at or below the low-stock threshold or the reorder point (tracked items only). */
  low_stock?: boolean;
}

export interface StockLevelRow {
  id: number;
  inventory_item_id: number;
  location_id: number;
  available: number;
  on_hand: number;
  committed: number;
  incoming: number;
  updated_at: Date;
  variant_id: number | null;
  product_id: number | null;
  product_title: string | null;
  variant_title: string | null;
  sku: string | null;
  barcode: string | null;
  inventory_tracked: boolean | null;
  location_name: string | null;
  low_stock_threshold: number | null;
  reorder_point: number | null;
  max_stock: number | null;
}

export function listStockLevels(
  ctx: AppContext,
  db: Db,
  storeId: number,
  filters: StockLevelFilters,
  paging: PageRequest,
): Promise<Page<StockLevelRow>> {
  // Checked before any query: a search with no letter or digit is 400 invalid_filter, as on /v2/variants.
  const search = filters.q === undefined ? undefined : prefixQuery(filters.q);
  // A location's own rule row wins over the item's all-locations row (as the alerts read them).
  const rule = (column: "reorder_point" | "max_stock") =>
    sql<number | null>`case when rl.id is not null then rl.${sql.ref(column)} else ra.${sql.ref(column)} end`;
  let query = db
    .selectFrom("inventory_levels as il")
    .leftJoin("variants as v", (join) =>
      join.onRef("v.store_id", "=", "il.store_id").onRef("v.inventory_item_id", "=", "il.inventory_item_id"),
    )
    .leftJoin("locations as loc", (join) =>
      join.onRef("loc.store_id", "=", "il.store_id").onRef("loc.id", "=", "il.location_id"),
    )
    .leftJoin("alert_settings as s", "s.store_id", "il.store_id")
    .leftJoin("alert_item_rules as rl", (join) =>
      join
        .onRef("rl.store_id", "=", "il.store_id")
        .onRef("rl.inventory_item_id", "=", "il.inventory_item_id")
        .onRef("rl.location_id", "=", "il.location_id"),
    )
    .leftJoin("alert_item_rules as ra", (join) =>
      join
        .onRef("ra.store_id", "=", "il.store_id")
        .onRef("ra.inventory_item_id", "=", "il.inventory_item_id")
        .on("ra.location_id", "is", null),
    )
    .select([
      "il.id",
      "il.inventory_item_id",
      "il.location_id",
      "il.available",
      "il.on_hand",
      "il.committed",
      "il.incoming",
      "il.updated_at",
      "v.id as variant_id",
      "v.product_id",
      "v.product_title",
      "v.title as variant_title",
      "v.sku",
      "v.barcode",
      "v.inventory_tracked",
      "loc.name as location_name",
      "s.low_stock_threshold",
      rule("reorder_point").as("reorder_point"),
      rule("max_stock").as("max_stock"),
    ])
    .where("il.store_id", "=", storeId)
    // Levels at a location the store hides are not offered (as on the levels list).
    .where((eb) => eb.or([eb("loc.hidden", "is", null), eb("loc.hidden", "=", false)]))
    // Nor levels of a variant the platform deleted (as on the levels list): its stock no longer counts.
    .where("v.deleted_at", "is", null)
    // Nor levels the platform dropped with nothing left to acknowledge (as on the levels list).
    .where(listedLevel("il"));
  if (filters.location_id !== undefined) query = query.where("il.location_id", "=", filters.location_id);
  if (filters.inventory_item_ids !== undefined)
    query = query.where("il.inventory_item_id", "in", filters.inventory_item_ids);
  // The items whose variant matches, found through the variants_search index (its expression word for
  // word); each level is then one lookup on inventory_levels_item_location, not a scan of every level.
  if (search !== undefined)
    query = query.where("il.inventory_item_id", "in", (eb) =>
      eb
        .selectFrom("variants as sv")
        .select("sv.inventory_item_id")
        .where("sv.store_id", "=", storeId)
        .where(
          sql<boolean>`variant_search_vector(sv.product_title, sv.title, sv.sku, sv.barcode) @@ to_tsquery('simple', ${search})`,
        ),
    );
  if (filters.low_stock)
    query = query
      .where("v.inventory_tracked", "=", true)
      .where((eb) =>
        eb.or([
          eb.and([
            eb("s.low_stock_threshold", "is not", null),
            eb("il.on_hand", "<=", eb.ref("s.low_stock_threshold")),
          ]),
          eb(sql<number>`il.available + il.incoming`, "<=", rule("reorder_point")),
        ]),
      );
  return keysetPage(
    query,
    paging,
    {
      timeColumn: "il.updated_at",
      idColumn: "il.id",
      direction: "asc",
      binding: {
        list: "stock_levels",
        store: storeId,
        q: filters.q === undefined ? undefined : searchWords(filters.q).join(" "),
        location_id: filters.location_id,
        inventory_item_ids: filters.inventory_item_ids,
        low_stock: filters.low_stock || undefined,
      },
    },
    ctx.cursorSecret,
    (row) => ({ time: row.updated_at, id: row.id }),
  ) as Promise<Page<StockLevelRow>>;
}
