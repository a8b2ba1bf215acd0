/**
 * The webhooks' sealed column (signing secrets) as the secrets start-up pass re-seals and checks it
 * (src/secrets/sealed-columns.ts): this module alone reads and writes its table.
 */
import { sql } from "kysely";
import type { Db } from "../../db/database.ts";
import { LEGACY_PATTERNS, type SealedColumn, type SealedRow } from "../../secrets/index.ts";

/** What a signing secret is sealed with: the store, so a value copied to another store's row does not open. */
export function webhookSecretContext(storeId: number): string {
  return `webhook:${storeId}`;
}

export const webhookSecretsColumn: SealedColumn = {
  label: "webhook signing secrets",
  legacyPatterns: [LEGACY_PATTERNS.webhookSecret],
  async lockMatching(trx: Db, pattern: string, limit: number): Promise<SealedRow[]> {
    const rows = await trx
      .selectFrom("webhooks")
      .select(["id", "store_id", "secret_encrypted"])
      .where("secret_encrypted", "like", pattern)
      .orderBy("id")
      .limit(limit)
      .forUpdate()
      .execute();
    return rows.map((r) => ({
      sealed: r.secret_encrypted,
      context: webhookSecretContext(r.store_id),
      ref: r.id,
    }));
  },
  async write(trx: Db, rows: readonly SealedRow[]): Promise<void> {
    const ids = rows.map((r) => r.ref as number);
    const values = rows.map((r) => r.sealed);
    await sql`
      update webhooks set secret_encrypted = u.sealed
      from unnest(${ids}::int[], ${values}::text[]) as u(id, sealed)
      where webhooks.id = u.id`.execute(trx);
  },
  async countNotMatching(db: Db, pattern: string) {
    const { rows } = await sql<{ prefix: string; count: string | number }>`
      select split_part(secret_encrypted, '.', 1) || '.' || split_part(secret_encrypted, '.', 2) as prefix,
        count(*) as count
      from webhooks where secret_encrypted not like ${pattern} group by 1`.execute(db);
    return rows.map((r) => ({ prefix: r.prefix, count: Number(r.count) }));
  },
};
