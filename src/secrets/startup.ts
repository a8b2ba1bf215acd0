/**
 * What a start does with sealed rows before the service answers anything:
 *  1. rows sealed with the old in-database key (`service_settings.secrets_key`) are re-sealed with the
 *     current key and that setting is deleted, in one transaction;
 *  2. rows sealed with a previous key (SECRETS_KEY_PREVIOUS) are re-sealed with the current one, so the
 *     previous key can be dropped at the next start;
 *  3. if any sealed row is left that the current key does not open, the start is refused.
 * Re-sealing at start rather than on read keeps reads free of writes and makes the end of a rotation
 * something a start proves, instead of something that happens row by row whenever a row is read.
 * Each module reads and writes its own rows (the `SealedColumn`s it offers); this file only decides.
 */
import { randomBytes } from "node:crypto";
import type { Config } from "../config.ts";
import type { Db } from "../db/database.ts";
import { loadOrCreateKeyFile } from "./key-file.ts";
import { SecretKey } from "./keys.ts";
import { openLegacy } from "./legacy.ts";
import { SecretsRefusal } from "./refusal.ts";
import type { SealedColumn, SealedRow } from "./sealed-columns.ts";
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
export async function openSecrets(db: Db, config: Config, columns: readonly SealedColumn[]): Promise<Sealer> {
  const sealer = sealerFromConfig(config);
  await migrateFromDatabaseKey(db, sealer, columns);
  for (const previous of sealer.previous) {
    if (previous.id === sealer.current.id) continue;
    for (const column of columns) {
      await db
        .transaction()
        .execute((trx) =>
          reseal(
            trx,
            column,
            Sealer.patternFor(previous.id),
            (row) => sealer.open(row.sealed, row.context),
            sealer,
          ),
        );
    }
  }
  await refuseUnopenable(db, sealer, columns);
  return sealer;
}

async function migrateFromDatabaseKey(
  db: Db,
  sealer: Sealer,
  columns: readonly SealedColumn[],
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // The lock makes a second process starting at the same time wait, then find nothing to migrate.
    const setting = await trx
      .selectFrom("service_settings")
      .select("value")
      .where("key", "=", LEGACY_SETTING)
      .forUpdate()
      .executeTakeFirst();
    if (!setting) return;
    for (const column of columns) {
      for (const pattern of column.legacyPatterns) {
        await reseal(
          trx,
          column,
          pattern,
          (row) => openLegacy(row.sealed, setting.value, row.context),
          sealer,
        );
      }
    }
    await trx.deleteFrom("service_settings").where("key", "=", LEGACY_SETTING).execute();
  });
}

/** Re-seals, batch by batch, every row of `column` whose value matches `pattern`. */
async function reseal(
  trx: Db,
  column: SealedColumn,
  pattern: string,
  open: (row: SealedRow) => string,
  sealer: Sealer,
): Promise<void> {
  for (;;) {
    const rows = await column.lockMatching(trx, pattern, BATCH);
    if (rows.length === 0) return;
    const resealed = rows.map((row) => {
      let plain: string;
      try {
        plain = open(row);
      } catch (error) {
        throw new SecretsRefusal(
          `Refusing to start: one of the ${column.label} (${JSON.stringify(row.ref)}) could not be opened ` +
            `to re-seal it: ${(error as Error).message}`,
        );
      }
      return { ...row, sealed: sealer.seal(plain, row.context, { compress: column.compress?.(plain) }) };
    });
    await column.write(trx, resealed);
  }
}

async function refuseUnopenable(db: Db, sealer: Sealer, columns: readonly SealedColumn[]): Promise<void> {
  const problems: string[] = [];
  for (const column of columns) {
    const counts = new Map<string, number>();
    for (const { prefix, count } of await column.countNotMatching(db, Sealer.patternFor(sealer.current.id))) {
      const [format, keyId] = prefix.split(".");
      const what = format === "k1" ? `key ${keyId}` : "the old in-database key, which is gone";
      counts.set(what, (counts.get(what) ?? 0) + count);
    }
    for (const [what, count] of counts) problems.push(`${count} ${column.label} sealed with ${what}`);
  }
  if (problems.length > 0) {
    throw new SecretsRefusal(
      `Refusing to start: ${problems.join("; ")}. Set SECRETS_KEY to the key that sealed them (and ` +
        "SECRETS_KEY_PREVIOUS to the one before), or restore the key file under DATA_DIR. " +
        `The current key is ${sealer.current.id}.`,
    );
  }
}
