import type { Selectable } from "kysely";
import type { AppContext } from "../context.ts";
import type { Db } from "../db/database.ts";
import type { StoresTable } from "../db/tables/foundation.ts";
import { AppError, DetailCollector, notFound } from "../domain/errors.ts";
import { isKnownCurrency } from "../domain/money.ts";
import { SCOPES } from "../domain/scopes.ts";
import { generateApiKey, randomBase62 } from "../domain/secrets.ts";

export type StoreRow = Selectable<StoresTable>;

export function presentStore(row: StoreRow) {
  return {
    id: row.id,
    name: row.name,
    domain: row.domain,
    currency: row.currency,
    timezone: row.timezone,
    owner_email: row.owner_email,
    platform: row.platform,
    api_access: row.api_access,
    numbering: {
      purchase_order_prefix: row.purchase_order_prefix,
      stock_adjustment_prefix: row.stock_adjustment_prefix,
      next_purchase_order_number: row.next_purchase_order_number,
      next_stock_adjustment_number: row.next_stock_adjustment_number,
    },
    rate_limits: {
      per_key_per_minute: row.rate_per_key_per_minute,
      per_store_per_minute: row.rate_per_store_per_minute,
      writes_per_store_per_minute: row.rate_writes_per_store_per_minute,
    },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function isValidTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .normalize("NFKD")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40) || "store"
  );
}

export interface CreateStoreInput {
  name: string;
  domain?: string;
  currency: string;
  timezone: string;
  owner_email?: string | null;
  platform?: "simulated";
  seed?: "demo" | "empty";
}

export async function createStore(ctx: AppContext, input: CreateStoreInput): Promise<StoreRow> {
  const problems = new DetailCollector();
  if (!isKnownCurrency(input.currency))
    problems.add("currency", "invalid_value", "is not a known ISO 4217 currency code");
  if (!isValidTimezone(input.timezone))
    problems.add("timezone", "invalid_value", "is not a known IANA time zone");
  problems.throwIfAny();
  const domain = (
    input.domain ?? `${slug(input.name)}-${randomBase62(6).toLowerCase()}.shop.test`
  ).toLowerCase();
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const taken = await trx.selectFrom("stores").select("id").where("domain", "=", domain).executeTakeFirst();
    if (taken)
      throw new AppError("validation_failed", "domain: is already used by another store", [
        { field: "domain", code: "taken", message: "is already used by another store" },
      ]);
    const store = await trx
      .insertInto("stores")
      .values({
        name: input.name,
        domain,
        currency: input.currency,
        timezone: input.timezone,
        owner_email: input.owner_email ?? null,
        platform: input.platform ?? "simulated",
        api_access: true,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    for (const module of ctx.modules) {
      if (module.onStoreCreated)
        await module.onStoreCreated(ctx, trx, store, { seed: input.seed ?? "empty" });
    }
    return store;
  });
}

export async function getStore(db: Db, id: number): Promise<StoreRow> {
  const row = await db.selectFrom("stores").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) throw notFound("store");
  return row;
}

export interface UpdateStoreInput {
  name?: string;
  api_access?: boolean;
  owner_email?: string | null;
  numbering?: {
    purchase_order_prefix?: string;
    stock_adjustment_prefix?: string;
    next_purchase_order_number?: number;
    next_stock_adjustment_number?: number;
  };
  rate_limits?: {
    per_key_per_minute?: number;
    per_store_per_minute?: number;
    writes_per_store_per_minute?: number;
  };
}

export async function updateStore(ctx: AppContext, id: number, input: UpdateStoreInput): Promise<StoreRow> {
  await getStore(ctx.db, id);
  const n = input.numbering ?? {};
  const r = input.rate_limits ?? {};
  const row = await ctx.db
    .updateTable("stores")
    .set({
      ...(input.name !== undefined && { name: input.name }),
      ...(input.api_access !== undefined && { api_access: input.api_access }),
      ...(input.owner_email !== undefined && { owner_email: input.owner_email }),
      ...(n.purchase_order_prefix !== undefined && { purchase_order_prefix: n.purchase_order_prefix }),
      ...(n.stock_adjustment_prefix !== undefined && { stock_adjustment_prefix: n.stock_adjustment_prefix }),
      ...(n.next_purchase_order_number !== undefined && {
        next_purchase_order_number: n.next_purchase_order_number,
      }),
      ...(n.next_stock_adjustment_number !== undefined && {
        next_stock_adjustment_number: n.next_stock_adjustment_number,
      }),
      ...(r.per_key_per_minute !== undefined && { rate_per_key_per_minute: r.per_key_per_minute }),
      ...(r.per_store_per_minute !== undefined && { rate_per_store_per_minute: r.per_store_per_minute }),
      ...(r.writes_per_store_per_minute !== undefined && {
        rate_writes_per_store_per_minute: r.writes_per_store_per_minute,
      }),
      updated_at: ctx.clock.now(),
    })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return row;
}

export function presentKey(row: {
  id: number;
  name: string;
  prefix: string;
  scopes: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
}) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    expires_at: row.expires_at?.toISOString() ?? null,
    last_used_at: row.last_used_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}

export async function createKey(
  ctx: AppContext,
  storeId: number,
  input: { name: string; scopes: string[]; expires_at?: string | null },
) {
  await getStore(ctx.db, storeId);
  const problems = new DetailCollector();
  input.scopes.forEach((scope, i) => {
    if (!(SCOPES as readonly string[]).includes(scope))
      problems.add(`scopes.${i}`, "invalid_value", `must be one of ${SCOPES.join(", ")}`);
  });
  const expiresAt = input.expires_at ? new Date(input.expires_at) : null;
  if (expiresAt && expiresAt.getTime() <= ctx.clock.now().getTime())
    problems.add("expires_at", "out_of_range", "must be in the future");
  problems.throwIfAny();
  const scopes = [...new Set(input.scopes)];
  const secret = generateApiKey();
  const row = await ctx.db
    .insertInto("api_keys")
    .values({
      store_id: storeId,
      name: input.name,
      prefix: secret.prefix,
      key_hash: secret.hash,
      scopes,
      expires_at: expiresAt,
      created_at: ctx.clock.now(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const { last_used_at: _u, revoked_at: _r, created_at: _c, ...shown } = presentKey(row);
  return { ...shown, key: secret.key };
}

export const FULL_SCOPES = [...SCOPES];
