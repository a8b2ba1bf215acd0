import { Type } from "@sinclair/typebox";
import { AppError } from "../../domain/errors.ts";

/**
 * `inventory_item_id=1,2,3`: one inventory item id, or up to 250 separated by commas (a page's worth),
 * as the lists that read a known set of items take it (stock levels, variants).
 */
export const InventoryItemIdList = Type.String({
  pattern: "^[1-9][0-9]{0,15}(,[1-9][0-9]{0,15}){0,249}$",
  description: "One inventory item id, or up to 250 separated by commas.",
});

/** The ids of the list, each once (each within 1..2^53-1, else 400 invalid_filter). */
export function itemIdsOf(text: string | undefined): number[] | undefined {
  if (text === undefined) return undefined;
  const ids = [...new Set(text.split(",").map(Number))];
  if (!ids.every(Number.isSafeInteger))
    throw new AppError("invalid_filter", "Each inventory_item_id must be at most 2^53-1.");
  return ids;
}
