import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { onOrderQuantities } from "../../domain/purchase-orders/index.ts";
import { listStockLevels, type StockLevelRow } from "../../domain/stock/index.ts";
import { type PrimarySupplier, primarySuppliersOf } from "../../domain/suppliers/index.ts";
import { principalOf } from "../plugins/auth.ts";
import {
  commonErrorResponses,
  Named,
  Nullable,
  Page,
  PagingQuery,
  PlatformId,
  Timestamp,
} from "../schemas/common.ts";
import { InventoryItemIdList, itemIdsOf } from "../schemas/item-id-list.ts";

/**
 * Beyond the contract: stock levels for people (the merchant console's stock and low-stock pages, or
 * an integrator's reorder screen). One row per item per location as /inventory_levels has it, with the
 * item and location named, Stockroom's own open orders (`on_order`), the alert rules that apply, which
 * lines the level is at or below, a suggested order quantity and the item's primary supplier.
 */

const Below = Type.Unsafe<"low_stock" | "reorder_point">({
  type: "string",
  enum: ["low_stock", "reorder_point"],
});

export const StockLevelSchema = Named(
  "StockLevel",
  Type.Object({
    id: Type.Integer({ description: "The inventory level's id." }),
    inventory_item_id: Type.Integer(),
    variant_id: Nullable(Type.Integer()),
    product_id: Nullable(Type.Integer()),
    product_title: Nullable(Type.String()),
    variant_title: Nullable(Type.String()),
    sku: Nullable(Type.String()),
    barcode: Nullable(Type.String()),
    location: Type.Object({ id: Type.Integer(), name: Nullable(Type.String()) }),
    available: Type.Integer(),
    on_hand: Type.Integer(),
    committed: Type.Integer(),
    incoming: Type.Integer({ description: "Incoming stock as the platform reports it." }),
    on_order: Type.Integer({
      description:
        "Outstanding quantity (ordered less received and cancelled) on this store's open purchase orders for this item at this location; drafts are not on order yet.",
    }),
    low_stock_threshold: Nullable(Type.Integer({ description: "The store's low-stock threshold." })),
    reorder_point: Nullable(
      Type.Integer({ description: "The item's rule for this location, else for every location." }),
    ),
    max_stock: Nullable(Type.Integer()),
    below: Type.Array(Below, {
      description:
        "The lines this level is at or below: low_stock (on hand ≤ the threshold), reorder_point (available + incoming ≤ the reorder point).",
    }),
    suggested_quantity: Nullable(
      Type.Integer({
        description:
          "When the level is below a line: what to order to reach the max stock, or without one, to rise one above the highest line it is below, counting available and incoming stock; 0 when incoming stock already covers it. Null otherwise.",
      }),
    ),
    primary_supplier: Nullable(
      Type.Object(
        { id: Type.Integer(), name: Type.String() },
        {
          description:
            "The supplier whose catalog pins the item as primary, else the first active supplier that catalogs it.",
        },
      ),
    ),
    updated_at: Timestamp,
  }),
);

type Line = "low_stock" | "reorder_point";

function belowOf(row: StockLevelRow): Line[] {
  const out: Line[] = [];
  if (row.low_stock_threshold !== null && row.on_hand <= row.low_stock_threshold) out.push("low_stock");
  if (row.reorder_point !== null && row.available + row.incoming <= row.reorder_point)
    out.push("reorder_point");
  return out;
}

function suggestedQuantity(row: StockLevelRow, below: Line[]): number | null {
  if (below.length === 0) return null;
  const position = row.available + row.incoming;
  const lines = below.map((b) => (b === "low_stock" ? row.low_stock_threshold : row.reorder_point) ?? 0);
  const target = row.max_stock ?? Math.max(...lines) + 1;
  return Math.max(0, target - position);
}

function present(row: StockLevelRow, onOrder: Map<string, number>, suppliers: Map<number, PrimarySupplier>) {
  const below = belowOf(row);
  return {
    id: row.id,
    inventory_item_id: Number(row.inventory_item_id),
    variant_id: row.variant_id === null ? null : Number(row.variant_id),
    product_id: row.product_id === null ? null : Number(row.product_id),
    product_title: row.product_title,
    variant_title: row.variant_title,
    sku: row.sku,
    barcode: row.barcode,
    location: { id: Number(row.location_id), name: row.location_name },
    available: row.available,
    on_hand: row.on_hand,
    committed: row.committed,
    incoming: row.incoming,
    on_order: onOrder.get(`${row.inventory_item_id}:${row.location_id}`) ?? 0,
    low_stock_threshold: row.low_stock_threshold,
    reorder_point: row.reorder_point,
    max_stock: row.max_stock,
    below,
    suggested_quantity: suggestedQuantity(row, below),
    primary_supplier: suppliers.get(Number(row.inventory_item_id)) ?? null,
    updated_at: row.updated_at.toISOString(),
  };
}

export async function stockLevelRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    "/stock_levels",
    {
      config: { scope: "read" },
      schema: {
        tags: ["catalog"],
        summary: "Stock levels with their item, location, open orders and alert rules (oldest update first)",
        description:
          "Beyond the contract. `q`: words that must each start a word, in any case, of the item's product title, variant title, SKU or barcode (as on /v2/variants; a search with no letter or digit is 400 `invalid_filter`). `low_stock=true`: only tracked items at or below the store's low-stock threshold (on hand) or their reorder point (available + incoming).",
        querystring: Type.Object(
          {
            ...PagingQuery,
            q: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            location_id: Type.Optional(PlatformId),
            inventory_item_id: Type.Optional(InventoryItemIdList),
            low_stock: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: { 200: Page(StockLevelSchema), ...commonErrorResponses },
      },
    },
    async (request) => {
      const { store } = principalOf(request);
      const { q, location_id, low_stock } = request.query;
      const inventory_item_ids = itemIdsOf(request.query.inventory_item_id);
      const page = await listStockLevels(
        ctx,
        ctx.db,
        store.id,
        { q, location_id, low_stock, inventory_item_ids },
        request.query,
      );
      const items = page.data.map((r) => Number(r.inventory_item_id));
      const [onOrder, suppliers] = await Promise.all([
        onOrderQuantities(ctx.db, store.id, items),
        primarySuppliersOf(ctx.db, store.id, items),
      ]);
      return { ...page, data: page.data.map((r) => present(r, onOrder, suppliers)) };
    },
  );
}
