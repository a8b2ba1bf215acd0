import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { AppError, DetailCollector, notFound } from "../errors.ts";
import { isKnownCurrency } from "../money.ts";
import { randomBase62 } from "../secrets.ts";
import type { StoreRow } from "./presenter.ts";
import { allStores, findStore, insertStore, isDomainTaken, updateStoreRow } from "./repository.ts";

/** Stores: created (with every module's `onStoreCreated` in the same transaction), read and changed. */

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
  platform?: "simulated" | "shopify";
  seed?: "demo" | "empty";
}

/**
 * Creates the store. `attach` runs in the creation transaction after every module's onStoreCreated:
 * a platform's own record of the store (a Shopify shop) commits with it or not at all.
 */
export async function createStore(
  ctx: AppContext,
  input: CreateStoreInput,
  attach?: (trx: Db, store: StoreRow) => Promise<void>,
): Promise<StoreRow> {
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
    if (await isDomainTaken(trx, domain))
      throw new AppError("validation_failed", "domain: is already used by another store", [
        { field: "domain", code: "taken", message: "is already used by another store" },
      ]);
    const store = await insertStore(trx, {
      name: input.name,
      domain,
      currency: input.currency,
      timezone: input.timezone,
      owner_email: input.owner_email ?? null,
      platform: input.platform ?? "simulated",
      api_access: true,
      created_at: now,
      updated_at: now,
    });
    for (const module of ctx.modules) {
      if (module.onStoreCreated)
        await module.onStoreCreated(ctx, trx, store, { seed: input.seed ?? "empty" });
    }
    await attach?.(trx, store);
    return store;
  });
}

/** The store of that id, or 404 `not_found`. */
export async function getStore(db: Db, id: number): Promise<StoreRow> {
  const row = await findStore(db, id);
  if (!row) throw notFound("store");
  return row;
}

export async function listStores(db: Db): Promise<StoreRow[]> {
  return allStores(db);
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
  return updateStoreRow(ctx.db, id, {
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
  });
}
