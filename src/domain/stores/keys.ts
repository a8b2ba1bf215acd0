import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { AppError, DetailCollector } from "../errors.ts";
import { SCOPES } from "../scopes.ts";
import { generateApiKey } from "../secrets.ts";
import { type KeyRow, presentKey } from "./presenter.ts";
import { insertKey, keysOfStore, revokeKeyRow } from "./repository.ts";
import { getStore } from "./service.ts";

/** A store's API keys: issued once (the secret is shown only then), listed, revoked. */

export const FULL_SCOPES = [...SCOPES];

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
  const row = await insertKey(ctx.db, {
    store_id: storeId,
    name: input.name,
    prefix: secret.prefix,
    key_hash: secret.hash,
    scopes,
    expires_at: expiresAt,
    created_at: ctx.clock.now(),
  });
  const { last_used_at: _u, revoked_at: _r, created_at: _c, ...shown } = presentKey(row);
  return { ...shown, key: secret.key };
}

/** The store's keys in id order; 404 when there is no such store. */
export async function listKeys(db: Db, storeId: number): Promise<KeyRow[]> {
  await getStore(db, storeId);
  return keysOfStore(db, storeId);
}

/** Revoking twice keeps the first `revoked_at`; a key of another store is 404. */
export async function revokeKey(ctx: AppContext, storeId: number, keyId: number): Promise<KeyRow> {
  const row = await revokeKeyRow(ctx.db, storeId, keyId, ctx.clock.now());
  if (!row) throw new AppError("not_found", "No such key in this store.");
  return row;
}
