import { type RawBuilder, sql } from "kysely";
import type { AppContext } from "../../context.ts";
import { arrayParam, insertRows, unnestRows } from "../../db/bulk.ts";
import type { Db } from "../../db/database.ts";
import { markDeleted, markMissingVariantsDeleted } from "./deletions.ts";
import type { CatalogFeed } from "./feed.ts";

/**
 * The mirror's writer: upserts a batch of the platform's products, variants, locations and item costs
 * (bulk, multi-row, in chunks). A batch applied twice changes nothing (rows are only rewritten when a
 * value differs). The sync that pulls the batches is the platform layer's (platform/catalog-sync.ts).
 */

const UPSERT_CHUNK = 500;

function chunks<T>(items: readonly T[], size = UPSERT_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** `(t.a, t.b, …) is distinct from (excluded.a, excluded.b, …)`: rewrite a row only when it changed. */
function changedFrom(table: string, columns: readonly string[]): RawBuilder<boolean> {
  const current = sql.join(columns.map((c) => sql.ref(`${table}.${c}`)));
  const incoming = sql.join(columns.map((c) => sql.ref(`excluded.${c}`)));
  return sql<boolean>`(${current}) is distinct from (${incoming})`;
}

const LOCATION_COLUMNS = ["name", "active", "fulfillment_service", "address", "platform_updated_at"] as const;
const PRODUCT_COLUMNS = [
  "title",
  "handle",
  "vendor",
  "product_type",
  "status",
  "tags",
  "options",
  "image_url",
  "platform_updated_at",
] as const;
/** The variant columns the platform's feed writes (every other column is Stockroom's own). */
export const VARIANT_COLUMNS = [
  "product_id",
  "inventory_item_id",
  "title",
  "product_title",
  "sku",
  "barcode",
  "position",
  "price",
  "compare_at_price",
  "unit_cost",
  "unit_cost_currency",
  "weight_grams",
  "inventory_tracked",
  "inventory_policy",
  "taxable",
  "image_url",
  "platform_updated_at",
] as const;

/** The item cost's columns, taken only from a newer report of it (newerCost). */
const COST_VERSION_COLUMNS = [
  "unit_cost",
  "unit_cost_currency",
  "unit_cost_version",
  "unit_cost_read_at",
] as const;
/** The feed's variant columns taken as the platform has them now. */
const PLAIN_VARIANT_COLUMNS = VARIANT_COLUMNS.filter((c) => c !== "unit_cost" && c !== "unit_cost_currency");

/**
 * `incoming`'s report of an item's cost is newer than the one the variant row `held` has (columns
 * unit_cost_version / unit_cost_read_at on both): by the platform's clock, the item's updatedAt with
 * that cost; in the same instant (Shopify's updatedAt has whole seconds), the report whose read began
 * after the other was known (a push's mutation answered); a report without a version (the simulated
 * platform), or a row without one, is taken as today. Without it a sync that read the items before a
 * push set their costs, and was answered after its acknowledgement, put the older costs back, and the
 * next receipt sent them again (10 Shopify points an item). `fromPush`: the incoming report is a
 * push's answer, which also wins a tie of both clocks (two pushes answered in one millisecond: the
 * one acknowledged last); a read in the very millisecond a push was answered may predate it, and
 * loses the tie.
 */
function newerCost(held: string, incoming: string, fromPush = false): RawBuilder<boolean> {
  const version = (t: string) => sql.ref(`${t}.unit_cost_version`);
  const readAt = (t: string) => sql.ref(`${t}.unit_cost_read_at`);
  const later = fromPush ? sql`>=` : sql`>`;
  return sql<boolean>`(${version(incoming)} is null or ${version(held)} is null
    or ${version(incoming)} > ${version(held)}
    or (${version(incoming)} = ${version(held)} and ${readAt(incoming)} is not null
      and (${readAt(held)} is null or ${readAt(incoming)} ${later} ${readAt(held)})))`;
}

/** What a newer report changes of a row: its cost (what the API shows), or only its version. */
function costChanged(held: string, incoming: string): RawBuilder<boolean> {
  const cols = (t: string) => sql.join([sql.ref(`${t}.unit_cost`), sql.ref(`${t}.unit_cost_currency`)]);
  return sql<boolean>`(${cols(held)}) is distinct from (${cols(incoming)})`;
}

/**
 * Item unit costs into the mirror's variants: from the change feed, and from a push the platform has
 * just accepted (in the acknowledging transaction: the platform holds them now, so the mirror shows
 * them at once; the next sync brings the platform's own record of the change and corrects the mirror
 * if another push set a different cost in between). The last cost given for an item wins, as on the
 * platform, and only over an older report (newerCost); unchanged rows are not rewritten, and a
 * report that only moves the version leaves updated_at as it was.
 */
export async function adoptUnitCosts(
  trx: Db,
  storeId: number,
  costs: ReadonlyArray<{
    inventoryItemId: number;
    unitCost: string | null;
    currency: string | null;
    updatedAt?: Date | null;
    readAt?: Date | null;
  }>,
  now: Date,
  /** The costs a push has just set (its acknowledgement), not a read's (newerCost). */
  { fromPush = false }: { fromPush?: boolean } = {},
): Promise<void> {
  if (costs.length === 0) return;
  const last = [...new Map(costs.map((c) => [c.inventoryItemId, c])).values()];
  const items = last.map((c) => c.inventoryItemId);
  await sql`
    update variants as v set unit_cost = c.unit_cost, unit_cost_currency = c.unit_cost_currency,
      unit_cost_version = c.unit_cost_version, unit_cost_read_at = c.unit_cost_read_at,
      updated_at = case when ${costChanged("v", "c")} then ${now} else v.updated_at end
    from (${unnestRows(last, [
      ["item", "bigint", (c) => c.inventoryItemId],
      ["unit_cost", "numeric", (c) => c.unitCost],
      ["currency", "text", (c) => c.currency],
      ["version", "timestamptz", (c) => c.updatedAt ?? null],
      ["read_at", "timestamptz", (c) => c.readAt ?? null],
    ])}) as c(item, unit_cost, unit_cost_currency, unit_cost_version, unit_cost_read_at)
    where v.store_id = ${storeId} and v.inventory_item_id = any(${items}::bigint[]) and v.inventory_item_id = c.item
      and ${newerCost("v", "c", fromPush)}
      and (${costChanged("v", "c")} or v.unit_cost_version is distinct from c.unit_cost_version)`.execute(
    trx,
  );
}

/**
 * The costs among `costs` (the last given per item) that differ from the mirror's: what the platform
 * was last told (a push's costs are adopted when it is acknowledged) or last reported (the change
 * feed). Setting an unchanged cost again costs a Shopify mutation (10 points) and changes nothing, so
 * a push leaves those out. Amounts compare as numbers ("7.5" = "7.50000000"), currencies exactly; an
 * item the mirror does not hold counts as changed.
 */
export async function changedUnitCosts<
  T extends { inventoryItemId: number; unitCost: string; currency: string | null },
>(db: Db, storeId: number, costs: readonly T[]): Promise<T[]> {
  if (costs.length === 0) return [];
  const last = [...new Map(costs.map((c) => [c.inventoryItemId, c])).values()];
  const same = await sql<{ item: string }>`
    select c.item from (${unnestRows(last, [
      ["item", "bigint", (c) => c.inventoryItemId],
      ["unit_cost", "numeric", (c) => c.unitCost],
      ["currency", "text", (c) => c.currency],
    ])}) as c(item, unit_cost, currency)
    join variants as v on v.store_id = ${storeId} and v.inventory_item_id = c.item
    where v.unit_cost = c.unit_cost and v.unit_cost_currency is not distinct from c.currency`.execute(db);
  const unchanged = new Set(same.rows.map((r) => Number(r.item)));
  return last.filter((c) => !unchanged.has(c.inventoryItemId));
}

/**
 * Applies one batch of platform changes to the mirror, in the caller's transaction. Answers the
 * locations found deleted on the platform (now inactive here), whose levels went with them.
 */
export async function applyCatalogChanges(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  changes: CatalogFeed,
): Promise<{ locationsGone: number[] }> {
  const now = ctx.clock.now();

  for (const part of chunks(changes.locations)) {
    await trx
      .insertInto("locations")
      .values(
        part.map((l) => ({
          store_id: storeId,
          id: l.id,
          name: l.name,
          active: l.active,
          fulfillment_service: l.fulfillmentService,
          address: JSON.stringify(l.address),
          platform_updated_at: l.updatedAt,
          created_at: now,
          updated_at: now,
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(["store_id", "id"])
          .doUpdateSet((eb) => ({
            ...Object.fromEntries(LOCATION_COLUMNS.map((c) => [c, eb.ref(`excluded.${c}`)])),
            updated_at: now,
          }))
          .where(changedFrom("locations", LOCATION_COLUMNS)),
      )
      .execute();
  }

  for (const part of chunks(changes.products)) {
    await trx
      .insertInto("products")
      .values(
        part.map((p) => ({
          store_id: storeId,
          id: p.id,
          title: p.title,
          handle: p.handle,
          vendor: p.vendor,
          product_type: p.productType,
          status: p.status,
          tags: p.tags,
          options: JSON.stringify(p.options),
          image_url: p.imageUrl,
          platform_updated_at: p.updatedAt,
          created_at: now,
          updated_at: now,
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(["store_id", "id"])
          .doUpdateSet((eb) => ({
            ...Object.fromEntries(PRODUCT_COLUMNS.map((c) => [c, eb.ref(`excluded.${c}`)])),
            updated_at: now,
          }))
          .where(changedFrom("products", PRODUCT_COLUMNS))
          // A deleted product stays as it was when deleted: a read that raced the deletion is stale.
          .where(sql<boolean>`products.deleted_at is null`),
      )
      .execute();
  }
  // A renamed product renames its variants' product_title.
  if (changes.products.length > 0) {
    for (const part of chunks(changes.products, 5000)) {
      await sql`
        update variants as v set product_title = p.title, updated_at = ${now}
        from products as p
        where v.store_id = ${storeId} and p.store_id = v.store_id and p.id = v.product_id
          and p.id in (${sql.join(part.map((p) => p.id))})
          and v.product_title is distinct from p.title`.execute(trx);
    }
  }

  if (changes.variants.length > 0) {
    const titles = new Map(changes.products.map((p) => [p.id, p.title]));
    const missing = [...new Set(changes.variants.map((v) => v.productId))].filter((id) => !titles.has(id));
    for (const part of chunks(missing, 5000)) {
      const rows = await trx
        .selectFrom("products")
        .select(["id", "title"])
        .where("store_id", "=", storeId)
        .where("id", "in", part)
        .execute();
      for (const r of rows) titles.set(r.id, r.title);
    }
    const newer = newerCost("variants", "excluded");
    for (const part of chunks(changes.variants)) {
      await insertRows(
        "variants",
        part,
        [
          ["store_id", "int", () => storeId],
          ["id", "bigint", (v) => v.id],
          ["product_id", "bigint", (v) => v.productId],
          ["inventory_item_id", "bigint", (v) => v.inventoryItem.id],
          ["title", "text", (v) => v.title],
          ["product_title", "text", (v) => titles.get(v.productId) ?? ""],
          ["sku", "text", (v) => v.sku],
          ["barcode", "text", (v) => v.barcode],
          ["position", "int", (v) => v.position],
          ["price", "numeric", (v) => v.price],
          ["compare_at_price", "numeric", (v) => v.compareAtPrice],
          ["unit_cost", "numeric", (v) => v.inventoryItem.unitCost],
          ["unit_cost_currency", "text", (v) => v.inventoryItem.unitCostCurrency],
          ["unit_cost_version", "timestamptz", (v) => v.inventoryItem.updatedAt ?? null],
          ["unit_cost_read_at", "timestamptz", () => null],
          ["weight_grams", "int", (v) => v.weightGrams],
          ["inventory_tracked", "boolean", (v) => v.inventoryItem.tracked],
          ["inventory_policy", "text", (v) => v.inventoryPolicy],
          ["taxable", "boolean", (v) => v.taxable],
          ["image_url", "text", (v) => v.imageUrl],
          ["platform_updated_at", "timestamptz", (v) => v.updatedAt],
          ["created_at", "timestamptz", () => now],
          ["updated_at", "timestamptz", () => now],
        ],
        sql`on conflict (store_id, id) do update set
        ${sql.join(PLAIN_VARIANT_COLUMNS.map((c) => sql`${sql.ref(c)} = ${sql.ref(`excluded.${c}`)}`))},
        ${sql.join(
          COST_VERSION_COLUMNS.map(
            (c) =>
              sql`${sql.ref(c)} = case when ${newer} then ${sql.ref(`excluded.${c}`)} else ${sql.ref(`variants.${c}`)} end`,
          ),
        )},
        updated_at = case when ${changedFrom("variants", PLAIN_VARIANT_COLUMNS)}
          or (${newer} and ${costChanged("variants", "excluded")}) then ${now} else variants.updated_at end
        where variants.deleted_at is null and (${changedFrom("variants", PLAIN_VARIANT_COLUMNS)}
          or (${newer} and (${costChanged("variants", "excluded")}
            or variants.unit_cost_version is distinct from excluded.unit_cost_version)))`,
      ).execute(trx);
    }
  }

  await adoptUnitCosts(trx, storeId, changes.itemCosts, now);
  await markMissingVariantsDeleted(trx, storeId, changes.variantSets ?? [], now);
  await markDeleted(trx, storeId, { productIds: changes.removedProductIds ?? [], variantIds: [] }, now);
  return { locationsGone: await markMissingLocationsInactive(trx, storeId, changes.locationSet, now) };
}

/**
 * A location the platform no longer has (deleted there; Shopify does not reuse ids) becomes inactive,
 * as the contract shows a location that cannot take stock: out of GET /locations, `active: false` by
 * id, refused by receipts and adjustments. The row stays: orders, receipts and movements name it.
 * Answers each location the first time it is found gone (`deleted_at`), active or not: one
 * deactivated on the platform before its deletion is inactive already, and its levels go now too.
 */
async function markMissingLocationsInactive(
  trx: Db,
  storeId: number,
  locationSet: readonly number[] | undefined,
  now: Date,
): Promise<number[]> {
  if (locationSet === undefined) return [];
  const { rows } = await sql<{ id: string | number }>`
    update locations set active = false, deleted_at = ${now}, updated_at = ${now}
    where store_id = ${storeId} and deleted_at is null
      and not (id = any(${arrayParam("bigint", locationSet)}))
    returning id`.execute(trx);
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}
