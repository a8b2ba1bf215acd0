/** A store as the admin API answers it: the stores module's view, and its Shopify shop's state. */
import { Type } from "@sinclair/typebox";
import type { Db } from "../db/database.ts";
import { presentStore, type StoreRow } from "../domain/stores/index.ts";
import { Nullable, Timestamp } from "../http/schemas/common.ts";
import { presentShop, type ShopifyShopRow, shopsOfStores } from "../platform/shopify/index.ts";

export const ShopifyStateSchema = Type.Object({
  shop: Type.String(),
  api_version: Type.String(),
  scopes: Type.Array(Type.String()),
  status: Type.Union([Type.Literal("importing"), Type.Literal("connected"), Type.Literal("disconnected")]),
  disconnected_reason: Nullable(Type.String()),
  import_error: Nullable(Type.String()),
  imported_at: Nullable(Timestamp),
  last_webhook_at: Nullable(Timestamp),
  last_reconciled_at: Nullable(Timestamp),
});

function withShop(row: StoreRow, shop: ShopifyShopRow | undefined) {
  const store = presentStore(row);
  return shop ? { ...store, shopify: presentShop(shop) } : store;
}

export async function storeViews(db: Db, rows: readonly StoreRow[]) {
  const shopify = rows.filter((r) => r.platform === "shopify").map((r) => r.id);
  const shops = new Map((await shopsOfStores(db, shopify)).map((s) => [s.store_id, s]));
  return rows.map((row) => withShop(row, shops.get(row.id)));
}

export async function storeView(db: Db, row: StoreRow) {
  return (await storeViews(db, [row]))[0];
}
