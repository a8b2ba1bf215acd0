/**
 * What a start does with sealed rows before the service answers anything:
 *  1. rows sealed with the old in-database key (`service_settings.secrets_key`) are re-sealed with the
 *     current key and that setting is deleted, in one transaction;
 *  2. rows sealed with a previous key (SECRETS_KEY_PREVIOUS) are re-sealed with the current one, so the
 *     previous key can be dropped at the next start;
 *  3. if any sealed row is left that the current key does not open, the start is refused.
 * Re-sealing at start rather than on read keeps reads free of writes and makes the end of a rotation
 * something a start proves, instead of something that happens row by row whenever a row is read.
 */
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import type { Config } from "../config.ts";
import { unnestRows } from "../db/bulk.ts";
import type { Db } from "../db/database.ts";
import { loadOrCreateKeyFile } from "./key-file.ts";
import { SecretKey } from "./keys.ts";
import { SecretsRefusal } from "./refusal.ts";
import { SEALED_COLUMNS, type SealedColumn } from "./sealed-columns.ts";
import { Sealer } from "./sealer.ts";

const LEGACY_SETTING = "secrets_key";
const BATCH = 500;

/** The sealer of this process: SECRETS_KEY, else the key file under DATA_DIR (in memory for `:memory:`). */
export function sealerFromConfig(config: Config): Sealer {
  const current =
    config.secretsKey ??
    (config.dataDir === ":memory:" ? new SecretKey(randomBytes(32)) : loadOrCreateKeyFile(config.dataDir));
  return new Sealer(current, config.secretsKeyPrevious ? [config.secretsKeyPrevious] : []);
}

/** Builds the sealer and brings every sealed row to its current key; throws SecretsRefusal if it cannot. */
export async function openSecrets(db: Db, config: Config): Promise<Sealer> {
  const sealer = sealerFromConfig(config);
  await migrateFromDatabaseKey(db, sealer);
  for (const previous of sealer.previous) {
    if (previous.id === sealer.current.id) continue;
    for (const column of SEALED_COLUMNS) {
      await db
        .transaction()
        .execute((trx) =>
          resealMatching(
            trx,
            column,
            Sealer.patternFor(previous.id),
            (stored, row) => sealer.open(stored, column.context(row)),
            sealer,
          ),
        );
    }
  }
  await refuseUnopenable(db, sealer);
  return sealer;
}

async function migrateFromDatabaseKey(db: Db, sealer: Sealer): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // The lock makes a second process starting at the same time wait, then find nothing to migrate.
    const setting = await trx
      .selectFrom("service_settings")
      .select("value")
      .where("key", "=", LEGACY_SETTING)
      .forUpdate()
      .executeTakeFirst();
    if (!setting) return;
    for (const column of SEALED_COLUMNS) {
      await resealMatching(
        trx,
        column,
        column.legacy.pattern,
        (stored, row) => column.legacy.open(stored, setting.value, row),
        sealer,
      );
    }
    await trx.deleteFrom("service_settings").where("key", "=", LEGACY_SETTING).execute();
  });
}

/** Re-seals, batch by batch, every row of `column` whose value matches `pattern`. */
async function resealMatching(
  db: Db,
  column: SealedColumn,
  pattern: string,
  open: (stored: string, row: Record<string, unknown>) => string,
  sealer: Sealer,
): Promise<void> {
  const keyNames = column.rowKey.map(([name]) => name);
  for (;;) {
    const { rows } = await sql<Record<string, unknown> & { sealed: string }>`
      select ${sql.join(keyNames.map((n) => sql.ref(n)))}, ${sql.ref(column.column)} as sealed
      from ${sql.table(column.table)}
      where ${sql.ref(column.column)} like ${pattern}
      limit ${BATCH}
      for update`.execute(db);
    if (rows.length === 0) return;
    const resealed = rows.map((row) => {
      let plain: string;
      try {
        plain = open(row.sealed, row);
      } catch (error) {
        throw new SecretsRefusal(
          `a row of ${column.label} (${column.table} ${keyNames.map((n) => `${n}=${row[n]}`).join(", ")}) ` +
            `could not be opened to re-seal it: ${(error as Error).message}`,
        );
      }
      return { ...row, sealed: sealer.seal(plain, column.context(row)) };
    });
    const match = keyNames.map((n) => sql`t.${sql.ref(n)} = u.${sql.ref(n)}`);
    const updated = unnestRows(resealed, [
      ...column.rowKey.map(([name, type]) => [name, type, (r: Record<string, unknown>) => r[name]] as const),
      ["sealed", "text", (r: Record<string, unknown>) => r.sealed] as const,
    ]);
    await sql`
      update ${sql.table(column.table)} as t set ${sql.ref(column.column)} = u.sealed
      from (${updated}) as u(${sql.join([...keyNames, "sealed"].map((n) => sql.ref(n)))})
      where ${sql.join(match, sql` and `)}`.execute(db);
  }
}

async function refuseUnopenable(db: Db, sealer: Sealer): Promise<void> {
  const problems: string[] = [];
  for (const column of SEALED_COLUMNS) {
    const { rows } = await sql<{ kind: string; count: string | number }>`
      select case when ${sql.ref(column.column)} like 'k1.%' then split_part(${sql.ref(column.column)}, '.', 2)
        else 'old' end as kind, count(*) as count
      from ${sql.table(column.table)}
      where ${sql.ref(column.column)} is not null
        and ${sql.ref(column.column)} not like ${Sealer.patternFor(sealer.current.id)}
      group by 1`.execute(db);
    for (const row of rows) {
      const what = row.kind === "old" ? "the old in-database key, which is gone" : `key ${row.kind}`;
      problems.push(`${row.count} ${column.label} sealed with ${what}`);
    }
  }
  if (problems.length > 0) {
    throw new SecretsRefusal(
      `Refusing to start: ${problems.join("; ")}. Set SECRETS_KEY to the key that sealed them (and ` +
        `SECRETS_KEY_PREVIOUS to the one before), or restore the key file under DATA_DIR. ` +
        `The current key is ${sealer.current.id}.`,
    );
  }
}
