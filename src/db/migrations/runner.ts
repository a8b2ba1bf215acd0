import { type Kysely, sql } from "kysely";
import { buildIndex, dropIndex, type IndexBuilds } from "./index-builds.ts";

/** A migration is a list of statements, run one by one (PGlite's extended protocol takes one at a time). */
export type Statements = readonly string[];

/**
 * What a migration does: statements run in the runner's transaction (most), or index builds run
 * outside any transaction (index-builds.ts), recorded only once every index is built and valid.
 */
export type MigrationSteps = Statements | IndexBuilds;

export interface NamedMigration {
  name: string;
  steps: MigrationSteps;
}

export function isIndexBuilds(steps: MigrationSteps): steps is IndexBuilds {
  return "indexBuilds" in steps;
}

/**
 * The runner's advisory lock: Stockroom's own number, not the one Kysely's Migrator took until the
 * nineteenth session (3853314791062309107). An older release's runner waits for that one blocked in
 * `pg_advisory_lock`, holding a snapshot; were it this lock, an index build here would wait for that
 * waiter while it waits for the lock: PostgreSQL's deadlock detector failed one of them (seen on the
 * shared test database, 28 Nov, against other branches' test apps). An older runner beside this one
 * (an upgrade) is safe without the lock: each statement migration is recorded in its own transaction
 * under the name's primary key, so of two runs of one only one can commit; the index builds are this
 * runner's alone.
 */
const MIGRATION_LOCK = "7186401225036447281";
const LOCK_POLL_MS = 50;

/**
 * Names are `NNN_words`: ordered by their number, then by the rest (two branches that picked the same
 * number both run, in name order). Numbers are ordered, not contiguous (docs/decisions.md, "Migrations").
 */
export function compareMigrationNames(a: string, b: string): number {
  const number = (name: string) => Number(/^(\d+)_/.exec(name)?.[1] ?? Number.NaN);
  return number(a) - number(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Runs every migration of `migrations` the database has not recorded in `kysely_migration` (the
 * table Kysely's Migrator kept; same columns), in name order. A migration that landed after a
 * later-numbered one had already run somewhere (013 went out before 012) still runs there.
 *
 * All of it on one connection holding a session advisory lock, so processes starting together run
 * each migration once: the others wait, then find it recorded. They wait by polling
 * `pg_try_advisory_lock`, not blocked in `pg_advisory_lock`: a statement blocked there holds a
 * snapshot, and a concurrent index build waits for every older snapshot of the database, so the
 * builder would wait for its waiter (a deadlock PostgreSQL would break by failing one of them).
 *
 * Consecutive statement migrations run in one transaction, each recorded in it; an index-build
 * migration ends that transaction, builds (and drops) its indexes outside one, then is recorded. No statement
 * timeout here: the pool's 30 s would stop a build over a large table halfway.
 */
export async function runMigrations(
  db: Kysely<unknown>,
  migrations: readonly NamedMigration[],
): Promise<void> {
  await db.connection().execute(async (connection) => {
    await sql`set statement_timeout = 0`.execute(connection);
    await takeMigrationLock(connection);
    try {
      await sql`create table if not exists kysely_migration (
          name varchar(255) not null primary key, timestamp varchar(255) not null)`.execute(connection);
      const pending = await pendingOf(connection, migrations);
      let i = 0;
      while (i < pending.length) {
        const { name, steps } = pending[i];
        if (isIndexBuilds(steps)) {
          await failingAs(name, async () => {
            for (const build of steps.indexBuilds) await buildIndex(connection, build);
            for (const name of steps.indexDrops ?? []) await dropIndex(connection, name);
            await record(connection, name);
          });
          i++;
          continue;
        }
        let end = i;
        while (end < pending.length && !isIndexBuilds(pending[end].steps)) end++;
        const group = pending.slice(i, end);
        let current = name;
        await failingAs(
          () => current,
          () =>
            connection.transaction().execute(async (trx) => {
              for (const migration of group) {
                current = migration.name;
                for (const statement of migration.steps as Statements) await sql.raw(statement).execute(trx);
                await record(trx, migration.name);
              }
            }),
        );
        i = end;
      }
    } finally {
      // A connection lost mid-run fails these too; the error worth reporting is the run's (its
      // session, and so the lock, ended with it).
      await sql`select pg_advisory_unlock(${sql.lit(MIGRATION_LOCK)}::bigint)`
        .execute(connection)
        .catch(() => {});
      await sql`reset statement_timeout`.execute(connection).catch(() => {});
    }
  });
}

async function takeMigrationLock(connection: Kysely<unknown>): Promise<void> {
  for (;;) {
    const { rows } = await sql<{ taken: boolean }>`
      select pg_try_advisory_lock(${sql.lit(MIGRATION_LOCK)}::bigint) as taken`.execute(connection);
    if (rows[0].taken) return;
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
}

/** The given migrations not recorded yet, in name order; a recorded one this release lacks stops it. */
async function pendingOf(
  connection: Kysely<unknown>,
  migrations: readonly NamedMigration[],
): Promise<NamedMigration[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(connection);
  const recorded = new Set(rows.map((r) => r.name));
  const known = new Set(migrations.map((m) => m.name));
  const unknown = [...recorded].filter((name) => !known.has(name)).sort(compareMigrationNames);
  if (unknown.length > 0) {
    throw new Error(
      `the database has migration ${unknown.join(", ")}, which this release does not know (a newer release migrated it)`,
    );
  }
  return migrations
    .filter((m) => !recorded.has(m.name))
    .sort((a, b) => compareMigrationNames(a.name, b.name));
}

async function record(connection: Kysely<unknown>, name: string): Promise<void> {
  await sql`insert into kysely_migration (name, timestamp) values (${name}, ${new Date().toISOString()})`.execute(
    connection,
  );
}

async function failingAs(name: string | (() => string), work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`migration ${typeof name === "function" ? name() : name} failed: ${reason}`, {
      cause: error,
    });
  }
}
