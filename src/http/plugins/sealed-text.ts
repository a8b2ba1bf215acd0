import { sql } from "kysely";
import type { Db } from "../../db/database.ts";
import { LEGACY_PATTERNS, type SealedColumn, type SealedRow, type Sealer } from "../../secrets/index.ts";

/**
 * Stored responses can hold secrets shown once (a webhook's signing secret), so they are kept sealed
 * (src/secrets: AES-256-GCM under a key kept outside the database) rather than in plain text for their
 * 24 hours. The purpose is the context the values are sealed with.
 */
export interface SealingKey {
  sealer: Sealer;
  purpose: string;
}

export const STORED_RESPONSE_PURPOSE = "idempotency";

export function sealingKey(sealer: Sealer, purpose: string): SealingKey {
  return { sealer, purpose };
}

/**
 * Responses this long or longer are deflated before they are sealed. A receipt's or an apply's answer
 * (the whole order or adjustment, 50-200 lines) is 60-100 KB of JSON, about a tenth of that deflated;
 * sealed, it would not compress in the database, and every byte of it went to the WAL and the TOAST
 * table once more in base64. Shorter answers are sealed as they are (deflating them saves little).
 * The one answer with a secret, a webhook's creation, is sealed once with a secret made for it, so
 * its length cannot be used to guess the secret as repeated compressions of one secret beside text
 * an attacker varies could (and a long description aside, it is under this length).
 */
export const COMPRESS_FROM = 4096;

/** A text's length in characters, or UTF-8 bytes' in bytes (the answers at the threshold are ASCII JSON). */
const deflated = (text: string | Buffer): boolean => text.length >= COMPRESS_FROM;

export function seal(text: string | Buffer, key: SealingKey): string {
  return key.sealer.seal(text, key.purpose, { compress: deflated(text) });
}

export function unseal(stored: string, key: SealingKey): string {
  return key.sealer.open(stored, key.purpose);
}

interface ResponseRef {
  store_id: number;
  api_key_id: number;
  key: string;
}

/** Stored responses as the secrets start-up pass re-seals and checks them (src/secrets/sealed-columns.ts). */
export const storedResponsesColumn: SealedColumn = {
  label: "stored idempotent responses",
  legacyPatterns: [LEGACY_PATTERNS.storedResponse],
  // Re-sealed at start (a rotated key) as written: deflated when long.
  compress: deflated,
  async lockMatching(trx: Db, pattern: string, limit: number): Promise<SealedRow[]> {
    const rows = await trx
      .selectFrom("idempotency_keys")
      .select(["store_id", "api_key_id", "key", "response_body"])
      .where("response_body", "like", pattern)
      .limit(limit)
      .forUpdate()
      .execute();
    return rows.map((r) => ({
      sealed: r.response_body as string,
      context: STORED_RESPONSE_PURPOSE,
      ref: { store_id: r.store_id, api_key_id: r.api_key_id, key: r.key } satisfies ResponseRef,
    }));
  },
  async write(trx: Db, rows: readonly SealedRow[]): Promise<void> {
    const refs = rows.map((r) => r.ref as ResponseRef);
    await sql`
      update idempotency_keys set response_body = u.sealed
      from unnest(${refs.map((r) => r.store_id)}::int[], ${refs.map((r) => r.api_key_id)}::int[],
        ${refs.map((r) => r.key)}::text[], ${rows.map((r) => r.sealed)}::text[]) as u(store_id, api_key_id, key, sealed)
      where idempotency_keys.store_id = u.store_id and idempotency_keys.api_key_id = u.api_key_id
        and idempotency_keys.key = u.key`.execute(trx);
  },
  async countNotMatching(db: Db, pattern: string) {
    const { rows } = await sql<{ prefix: string; count: string | number }>`
      select split_part(response_body, '.', 1) || '.' || split_part(response_body, '.', 2) as prefix,
        count(*) as count
      from idempotency_keys where response_body is not null and response_body not like ${pattern}
      group by 1`.execute(db);
    return rows.map((r) => ({ prefix: r.prefix, count: Number(r.count) }));
  },
};
