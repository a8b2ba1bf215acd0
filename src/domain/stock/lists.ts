/** The inventory levels list, keyset-paged, oldest update first. */

import type { Selectable } from "kysely";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { keysetPage, type Page, type PageRequest } from "../../db/keyset-paging.ts";
import type { InventoryLevelsTable } from "../../db/tables/catalog.ts";
import { itemNotDeleted, listedLevel } from "./level-drops.ts";

export interface LevelFilters {
  inventory_item_id?: number;
  location_id?: number;
}

export function listLevels(
  ctx: AppContext,
  db: Db,
  storeId: number,
  filters: LevelFilters,
  paging: PageRequest,
): Promise<Page<Selectable<InventoryLevelsTable>>> {
  const { inventory_item_id, location_id } = filters;
  let query = db
    .selectFrom("inventory_levels as il")
    .selectAll("il")
    .where("il.store_id", "=", storeId)
    // Nor levels the platform dropped, once none of their movements waits for its acknowledgement.
    .where(listedLevel("il"))
    // Levels at a location the store hides are not offered either.
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("locations as hl")
            .select("hl.id")
            .whereRef("hl.store_id", "=", "il.store_id")
            .whereRef("hl.id", "=", "il.location_id")
            .where("hl.hidden", "=", true),
        ),
      ),
    )
    // Nor levels of an item whose variant the platform deleted.
    .where(itemNotDeleted("il"));
  if (inventory_item_id !== undefined) query = query.where("il.inventory_item_id", "=", inventory_item_id);
  if (location_id !== undefined) query = query.where("il.location_id", "=", location_id);
  return keysetPage(
    query,
    paging,
    {
      timeColumn: "il.updated_at",
      idColumn: "il.id",
      direction: "asc",
      binding: { list: "inventory_levels", store: storeId, inventory_item_id, location_id },
    },
    ctx.cursorSecret,
    (row) => ({ time: row.updated_at, id: row.id }),
  );
}
