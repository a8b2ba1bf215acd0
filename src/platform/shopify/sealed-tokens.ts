/**
 * The shops' sealed columns as the secrets start-up pass re-seals and checks them
 * (src/secrets/sealed-columns.ts): access tokens, refresh tokens and webhook secrets, each its own
 * column of shopify_shops, all sealed in the context `shopify:<store id>`. Listed in src/runtime.ts.
 */
import { sql } from "kysely";
import type { Db } from "../../db/database.ts";
import type { SealedColumn, SealedRow } from "../../secrets/index.ts";
import { shopifySealContext } from "./shops.ts";

type SealedShopColumn = "access_token_sealed" | "refresh_token_sealed" | "webhook_secret_sealed";

function shopColumn(column: SealedShopColumn, label: string): SealedColumn {
  return {
    label,
    // Shopify tokens came after the key left the database: nothing was ever sealed with the old key.
    legacyPatterns: [],
    async lockMatching(trx: Db, pattern: string, limit: number): Promise<SealedRow[]> {
      const rows = await trx
        .selectFrom("shopify_shops")
        .select(["store_id", column])
        .where(column, "like", pattern)
        .orderBy("store_id")
        .limit(limit)
        .forUpdate()
        .execute();
      return rows.map((r) => ({
        sealed: r[column] as string,
        context: shopifySealContext(r.store_id),
        ref: r.store_id,
      }));
    },
    async write(trx: Db, rows: readonly SealedRow[]): Promise<void> {
      const ids = rows.map((r) => r.ref as number);
      const values = rows.map((r) => r.sealed);
      await sql`
        update shopify_shops set ${sql.ref(column)} = u.sealed
        from unnest(${ids}::int[], ${values}::text[]) as u(store_id, sealed)
        where shopify_shops.store_id = u.store_id`.execute(trx);
    },
    async countNotMatching(db: Db, pattern: string) {
      // A null (no refresh token, the app's webhook secret) is no sealed value: `not like` skips it.
      const { rows } = await sql<{ prefix: string; count: string | number }>`
        select split_part(${sql.ref(column)}, '.', 1) || '.' || split_part(${sql.ref(column)}, '.', 2) as prefix,
          count(*) as count
        from shopify_shops where ${sql.ref(column)} not like ${pattern} group by 1`.execute(db);
      return rows.map((r) => ({ prefix: r.prefix, count: Number(r.count) }));
    },
  };
}

export const shopifySealedColumns: readonly SealedColumn[] = [
  shopColumn("access_token_sealed", "Shopify access tokens"),
  shopColumn("refresh_token_sealed", "Shopify refresh tokens"),
  shopColumn("webhook_secret_sealed", "Shopify webhook secrets"),
];
