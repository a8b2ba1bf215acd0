/**
 * The shops attached to stores (shopify_shops): this file alone reads and writes the table. Tokens and
 * the webhook secret are sealed with the process's sealer in the context `shopify:<store id>`, so a value
 * copied to another store's row does not open; they are opened only to make calls (openShopTokens).
 * Times that mean something (expiry, import, last webhook, reconciliation) come from the caller's clock;
 * updated_at is bookkeeping and takes the database's.
 */
import { type Selectable, sql } from "kysely";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import type { ShopifyShopStatus, ShopifyShopsTable } from "../../db/tables/shopify.ts";
import type { BulkOperationKeeper } from "./bulk-operation.ts";

export type { ShopifyShopStatus } from "../../db/tables/shopify.ts";
export type ShopifyShopRow = Selectable<ShopifyShopsTable>;

/** What sealing and opening needs of the context. */
export type SealingContext = Pick<AppContext, "sealer">;

/** The context every sealed value of a store's shop is sealed with. */
export function shopifySealContext(storeId: number): string {
  return `shopify:${storeId}`;
}

/** A shop's tokens in the clear: an offline access token, with a refresh token when it expires. */
export interface ShopTokens {
  accessToken: string;
  accessTokenExpiresAt: Date | null;
  refreshToken: string | null;
  refreshTokenExpiresAt: Date | null;
}

export interface OpenedShopSecrets extends ShopTokens {
  /** Null: webhooks are signed with the app's SHOPIFY_API_SECRET. */
  webhookSecret: string | null;
}

export interface NewShop {
  storeId: number;
  /** `x.myshopify.com`. */
  shop: string;
  apiVersion: string;
  scopes: readonly string[];
  tokens: ShopTokens;
  webhookSecret?: string | null;
  status: ShopifyShopStatus;
  /** The installation's time (the service's clock; default the insert's): an older app/uninstalled does not disconnect it. */
  installedAt?: Date;
}

const UPDATED_NOW = sql<Date>`date_trunc('milliseconds', now())`;

export function findShopByStore(db: Db, storeId: number): Promise<ShopifyShopRow | undefined> {
  return db.selectFrom("shopify_shops").selectAll().where("store_id", "=", storeId).executeTakeFirst();
}

export function findShopByDomain(db: Db, shop: string): Promise<ShopifyShopRow | undefined> {
  return db.selectFrom("shopify_shops").selectAll().where("shop", "=", shop).executeTakeFirst();
}

/** The shops of these stores (a store without one is left out). */
export async function shopsOfStores(db: Db, storeIds: readonly number[]): Promise<ShopifyShopRow[]> {
  if (storeIds.length === 0) return [];
  return db
    .selectFrom("shopify_shops")
    .selectAll()
    .where("store_id", "in", [...storeIds])
    .execute();
}

function sealedTokenColumns(ctx: SealingContext, storeId: number, tokens: ShopTokens) {
  const context = shopifySealContext(storeId);
  return {
    access_token_sealed: ctx.sealer.seal(tokens.accessToken, context),
    access_token_expires_at: tokens.accessTokenExpiresAt,
    refresh_token_sealed: tokens.refreshToken === null ? null : ctx.sealer.seal(tokens.refreshToken, context),
    refresh_token_expires_at: tokens.refreshTokenExpiresAt,
  };
}

export async function insertShop(db: Db, ctx: SealingContext, input: NewShop): Promise<ShopifyShopRow> {
  const secret = input.webhookSecret ?? null;
  return db
    .insertInto("shopify_shops")
    .values({
      store_id: input.storeId,
      shop: input.shop,
      api_version: input.apiVersion,
      scopes: [...input.scopes],
      ...sealedTokenColumns(ctx, input.storeId, input.tokens),
      webhook_secret_sealed:
        secret === null ? null : ctx.sealer.seal(secret, shopifySealContext(input.storeId)),
      status: input.status,
      ...(input.installedAt ? { installed_at: input.installedAt } : {}),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * The tokens of a new installation (a new custom-app token, a re-install), installed at `installedAt`;
 * scopes and version when they changed. A refresh keeps its installation: replaceShopTokensIfToken.
 */
export async function updateShopTokens(
  db: Db,
  ctx: SealingContext,
  storeId: number,
  tokens: ShopTokens,
  also: { scopes?: readonly string[]; apiVersion?: string; installedAt: Date },
): Promise<ShopifyShopRow | undefined> {
  return db
    .updateTable("shopify_shops")
    .set({
      ...sealedTokenColumns(ctx, storeId, tokens),
      installed_at: also.installedAt,
      ...(also.scopes ? { scopes: [...also.scopes] } : {}),
      ...(also.apiVersion ? { api_version: also.apiVersion } : {}),
      updated_at: UPDATED_NOW,
    })
    .where("store_id", "=", storeId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Moves a shop to `status`; `reason` is kept for `disconnected` (what the merchant sees) and cleared
 * otherwise.
 */
export async function setShopStatus(
  db: Db,
  storeId: number,
  status: ShopifyShopStatus,
  reason?: string | null,
): Promise<ShopifyShopRow | undefined> {
  return db
    .updateTable("shopify_shops")
    .set({
      status,
      disconnected_reason: status === "disconnected" ? (reason ?? null) : null,
      updated_at: UPDATED_NOW,
    })
    .where("store_id", "=", storeId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * `app/uninstalled` triggered at `triggeredAt` (Shopify's X-Shopify-Triggered-At; null when absent or
 * unreadable: taken as current): the shop becomes `disconnected` with `reason` unless its current
 * installation began after the uninstall (a late delivery about the installation before a re-install).
 * One conditional update, so a re-install committing meanwhile is not undone. True when it disconnected.
 */
export async function disconnectUninstalledShop(
  db: Db,
  storeId: number,
  triggeredAt: Date | null,
  reason: string,
): Promise<boolean> {
  let update = db
    .updateTable("shopify_shops")
    .set({ status: "disconnected", disconnected_reason: reason, updated_at: UPDATED_NOW })
    .where("store_id", "=", storeId);
  if (triggeredAt !== null) update = update.where("installed_at", "<=", triggeredAt);
  const changed = await update.returning("store_id").executeTakeFirst();
  return changed !== undefined;
}

/**
 * The initial import ended at `at`: an importing shop becomes connected (a disconnected one stays so:
 * its token must be replaced first) and any earlier import error is cleared.
 */
export async function markShopImported(db: Db, storeId: number, at: Date): Promise<void> {
  await db
    .updateTable("shopify_shops")
    .set({
      status: sql<ShopifyShopStatus>`case when status = 'importing' then 'connected' else status end`,
      imported_at: at,
      import_error: null,
      updated_at: UPDATED_NOW,
    })
    .where("store_id", "=", storeId)
    .execute();
}

/** The import failed with `error` (shown with the shop's state; null clears it). The status stays. */
export async function setShopImportError(db: Db, storeId: number, error: string | null): Promise<void> {
  await db
    .updateTable("shopify_shops")
    .set({ import_error: error, updated_at: UPDATED_NOW })
    .where("store_id", "=", storeId)
    .execute();
}

/** A webhook of the shop was taken at `at` (never moves the time back). */
export async function markWebhookReceived(db: Db, storeId: number, at: Date): Promise<void> {
  await db
    .updateTable("shopify_shops")
    .set({ last_webhook_at: sql<Date>`greatest(last_webhook_at, ${at})` })
    .where("store_id", "=", storeId)
    .execute();
}

/** A reconciliation pass of the shop ended at `at`. */
export async function markReconciled(db: Db, storeId: number, at: Date): Promise<void> {
  await db
    .updateTable("shopify_shops")
    .set({ last_reconciled_at: at })
    .where("store_id", "=", storeId)
    .execute();
}

/**
 * Where the catalog sync keeps the bulk operation it started and has not seen end
 * (sync_bulk_operation_id), apart from reconciliation's: the two run side by side and must not
 * cancel each other's.
 */
export function syncBulkOperationKeeper(db: Db, storeId: number): BulkOperationKeeper {
  const keep = async (operationId: string | null) => {
    await db
      .updateTable("shopify_shops")
      .set({ sync_bulk_operation_id: operationId })
      .where("store_id", "=", storeId)
      .execute();
  };
  return {
    unfinished: async () => {
      const row = await db
        .selectFrom("shopify_shops")
        .select("sync_bulk_operation_id")
        .where("store_id", "=", storeId)
        .executeTakeFirst();
      return row?.sync_bulk_operation_id ?? null;
    },
    started: (operationId) => keep(operationId),
    ended: () => keep(null),
  };
}

/** The shop's tokens and webhook secret in the clear; throws if a value does not open. Never log them. */
export function openShopTokens(ctx: SealingContext, row: ShopifyShopRow): OpenedShopSecrets {
  const context = shopifySealContext(row.store_id);
  return {
    accessToken: ctx.sealer.open(row.access_token_sealed, context),
    accessTokenExpiresAt: row.access_token_expires_at,
    refreshToken:
      row.refresh_token_sealed === null ? null : ctx.sealer.open(row.refresh_token_sealed, context),
    refreshTokenExpiresAt: row.refresh_token_expires_at,
    webhookSecret:
      row.webhook_secret_sealed === null ? null : ctx.sealer.open(row.webhook_secret_sealed, context),
  };
}

/**
 * New tokens for `row`'s shop, written only while the row still holds the access token `row` was read
 * with (a refresh racing another process's, or a re-install, loses): the updated row, or undefined.
 */
export async function replaceShopTokensIfToken(
  db: Db,
  ctx: SealingContext,
  row: ShopifyShopRow,
  tokens: ShopTokens,
  also: { scopes?: readonly string[] } = {},
): Promise<ShopifyShopRow | undefined> {
  return db
    .updateTable("shopify_shops")
    .set({
      ...sealedTokenColumns(ctx, row.store_id, tokens),
      ...(also.scopes ? { scopes: [...also.scopes] } : {}),
      updated_at: UPDATED_NOW,
    })
    .where("store_id", "=", row.store_id)
    .where("access_token_sealed", "=", row.access_token_sealed)
    .returningAll()
    .executeTakeFirst();
}

/**
 * `row`'s shop becomes `disconnected` with `reason`, unless its access token changed since `row` was
 * read (a token refreshed or replaced meanwhile is not the one Shopify refused).
 */
export async function disconnectShopIfToken(db: Db, row: ShopifyShopRow, reason: string): Promise<boolean> {
  const changed = await db
    .updateTable("shopify_shops")
    .set({ status: "disconnected", disconnected_reason: reason, updated_at: UPDATED_NOW })
    .where("store_id", "=", row.store_id)
    .where("access_token_sealed", "=", row.access_token_sealed)
    .returning("store_id")
    .executeTakeFirst();
  return changed !== undefined;
}

/** Shops not disconnected whose refreshable access token expires before `before`, soonest first. */
export function shopsExpiringBefore(db: Db, before: Date): Promise<ShopifyShopRow[]> {
  return db
    .selectFrom("shopify_shops")
    .selectAll()
    .where("status", "<>", "disconnected")
    .where("refresh_token_sealed", "is not", null)
    .where("access_token_expires_at", "<", before)
    .orderBy("access_token_expires_at")
    .execute();
}
