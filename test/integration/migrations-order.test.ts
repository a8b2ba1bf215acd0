import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";
import { sql } from "kysely";
import pg from "pg";
import { openDatabase } from "../../src/db/database.ts";
import {
  compareMigrationNames,
  MIGRATION_NAMES,
  migrateToLatest,
  migrationSteps,
} from "../../src/db/migrations/index.ts";
import { type NamedMigration, runMigrations } from "../../src/db/migrations/runner.ts";

/**
 * Migration numbers are ordered but not contiguous (docs/decisions.md, "Migrations"): 013 went out
 * before 012, and 014 was never used. A fresh database runs them all in name order; a database an
 * older release left with 013 but not 012 gets 012 and the rest, each recorded once.
 */
const databaseUrl = process.env.TEST_DATABASE_URL ?? "";
const where = databaseUrl ? "PostgreSQL" : "PGlite";

type Database = Awaited<ReturnType<typeof openDatabase>>;

/**
 * PGlite: the files initdb leaves, made once for the file and loaded by each test's database. Each
 * test needs a database no migration has touched; initdb in WebAssembly is several seconds of CPU.
 */
let freshFiles: Promise<Uint8Array<ArrayBuffer>> | undefined;
function initdbFiles(): Promise<Uint8Array<ArrayBuffer>> {
  freshFiles ??= (async () => {
    const { PGlite } = await import("@electric-sql/pglite");
    const pglite = new PGlite();
    await pglite.waitReady;
    try {
      return new Uint8Array(await (await pglite.dumpDataDir("none")).arrayBuffer());
    } finally {
      await pglite.close();
    }
  })();
  return freshFiles;
}

async function withDatabase(work: (database: Database, schema: string) => Promise<void>): Promise<void> {
  const schema = `t_mig_${randomBytes(4).toString("hex")}`;
  const database = await openDatabase(
    databaseUrl
      ? { databaseUrl, dataDir: ":memory:", schema }
      : { databaseUrl, dataDir: ":memory:", embeddedTemplate: await initdbFiles() },
  );
  try {
    await work(database, schema);
  } finally {
    await database.close();
    if (databaseUrl) {
      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      await admin.query(`drop schema if exists ${schema} cascade`).finally(() => admin.end());
    }
  }
}

/** The migrations the database recorded, in the order they ran (time, then name as Kysely ties them). */
async function recorded(database: Database): Promise<string[]> {
  const rows = await sql<{
    name: string;
    timestamp: string;
  }>`select name, timestamp from kysely_migration`.execute(database.db);
  return rows.rows
    .sort((a, b) => a.timestamp.localeCompare(b.timestamp) || compareMigrationNames(a.name, b.name))
    .map((r) => r.name);
}

async function tableExists(database: Database, table: string): Promise<boolean> {
  const tables = await database.db.introspection.getTables();
  return tables.some((t) => t.name === table);
}

describe(`the migration runner (${where})`, () => {
  test("names are NNN_words, unique, and 012, 013 and 015 are among them without a 014", () => {
    for (const name of MIGRATION_NAMES) assert.match(name, /^\d{3}_[a-z0-9_]+$/);
    assert.equal(new Set(MIGRATION_NAMES).size, MIGRATION_NAMES.length);
    assert.deepEqual([...MIGRATION_NAMES].sort(compareMigrationNames), MIGRATION_NAMES);
    const numbers = MIGRATION_NAMES.map((n) => n.slice(0, 3));
    for (const n of ["012", "013", "015"]) assert.ok(numbers.includes(n), `${n} present`);
    assert.ok(!numbers.includes("014"), "014 is unused");
    assert.deepEqual(["016_b", "002_a", "016_a", "015_z"].sort(compareMigrationNames), [
      "002_a",
      "015_z",
      "016_a",
      "016_b",
    ]);
  });

  test("a fresh database runs every migration once, in name order; a second run changes nothing", async () => {
    await withDatabase(async (database) => {
      await migrateToLatest(database.db as never);
      assert.deepEqual(await recorded(database), MIGRATION_NAMES);
      await migrateToLatest(database.db as never);
      assert.deepEqual(await recorded(database), MIGRATION_NAMES);
      assert.ok(await tableExists(database, "staff"));
    });
  });

  test("a database with 013 but not 012 (as an older release left it) gets 012 and the rest", async () => {
    await withDatabase(async (database) => {
      const before012 = MIGRATION_NAMES.filter((n) => n < "012");
      await migrateToLatest(database.db as never, [...before012, "013_shopify_inbound"]);
      assert.deepEqual(await recorded(database), [...before012, "013_shopify_inbound"]);
      assert.equal(await tableExists(database, "staff"), false);
      assert.ok(await tableExists(database, "shopify_reconciliations"));

      await migrateToLatest(database.db as never);
      const names = await recorded(database);
      assert.deepEqual([...names].sort(compareMigrationNames), MIGRATION_NAMES, "each recorded once");
      assert.deepEqual(names.slice(0, before012.length + 1), [...before012, "013_shopify_inbound"]);
      assert.equal(names[before012.length + 1], "012_staff", "012 ran next, after 013");
      assert.ok(await tableExists(database, "staff"));
      assert.ok(await tableExists(database, "staff_links"));
    });
  });

  test("039: a push batch in flight at the upgrade keeps its unacknowledged movements, batch and marks", async () => {
    await withDatabase(async (database) => {
      const db = database.db;
      await migrateToLatest(
        db as never,
        MIGRATION_NAMES.filter((n) => n < "039"),
      );
      const { rows } = await sql<{ id: number }>`insert into stock_movements (store_id, subject_type,
          subject_id, inventory_item_id, location_id, available_delta, on_hand_delta, reason, push_batch_id,
          push_sent_at, pushed_at)
        values (4, 'receipt', 1, 11, 1, 1, 1, 'received', 7, now(), null),
          (4, 'receipt', 2, 12, 1, 1, 1, 'received', 7, null, null),
          (4, 'receipt', 3, 13, 1, 1, 1, 'received', 6, now(), now()),
          (4, 'receipt', 4, 14, 1, 1, 1, 'received', null, now(), null),
          (4, 'receipt', 5, 15, 1, 1, 1, 'received', null, null, null)
        returning id`.execute(db);
      const ids = rows.map((r) => Number(r.id));

      await migrateToLatest(db as never);
      const members = await sql<{
        movement_id: number;
        store_id: number;
        batch_id: number;
        in_flight: boolean;
      }>`
        select movement_id, store_id, batch_id, in_flight from push_batch_movements order by movement_id`.execute(
        db,
      );
      assert.deepEqual(
        members.rows.map((r) => [Number(r.movement_id), r.store_id, Number(r.batch_id), r.in_flight]),
        [
          [ids[0], 4, 7, true],
          [ids[1], 4, 7, false],
        ],
      );
      // A batched movement's mark moved to its batch row; one sent alone keeps it on the ledger.
      const marks = await sql<{ id: number; sent: boolean }>`select id, push_sent_at is not null as sent
        from stock_movements order by id`.execute(db);
      assert.deepEqual(
        marks.rows.map((r) => [Number(r.id), r.sent]),
        [
          [ids[0], false],
          [ids[1], false],
          [ids[2], true],
          [ids[3], true],
          [ids[4], false],
        ],
      );
      const columns = await sql<{ name: string }>`select column_name as name from information_schema.columns
        where table_schema = current_schema() and table_name = 'stock_movements' and column_name = 'push_batch_id'`.execute(
        db,
      );
      assert.deepEqual(columns.rows, []);
    });
  });

  test("040: each level counts its movements not acknowledged at the upgrade", async () => {
    await withDatabase(async (database) => {
      const db = database.db;
      await migrateToLatest(
        db as never,
        MIGRATION_NAMES.filter((n) => n < "040"),
      );
      await sql`insert into stores (id, name, domain, currency, timezone)
        values (4, 'A', 'a.test', 'USD', 'UTC'), (5, 'B', 'b.test', 'USD', 'UTC')`.execute(db);
      await sql`insert into inventory_levels (store_id, inventory_item_id, location_id, created_at, updated_at)
        values (4, 11, 1, now(), now()), (4, 12, 1, now(), now()), (5, 11, 1, now(), now())`.execute(db);
      await sql`insert into stock_movements (store_id, subject_type, subject_id, inventory_item_id, location_id,
          available_delta, on_hand_delta, reason, pushed_at)
        values (4, 'receipt', 1, 11, 1, 1, 1, 'received', null), (4, 'receipt', 2, 11, 1, 1, 1, 'received', null),
          (4, 'receipt', 3, 11, 1, 1, 1, 'received', now()), (4, 'receipt', 4, 12, 1, 1, 1, 'received', now()),
          (5, 'receipt', 5, 11, 1, 1, 1, 'received', null)`.execute(db);

      await migrateToLatest(db as never);
      const levels = await sql<{ store_id: number; inventory_item_id: number; unacknowledged: number }>`
        select store_id, inventory_item_id, unacknowledged from inventory_levels
        order by store_id, inventory_item_id`.execute(db);
      assert.deepEqual(
        levels.rows.map((r) => [r.store_id, Number(r.inventory_item_id), r.unacknowledged]),
        [
          [4, 11, 2],
          [4, 12, 0],
          [5, 11, 1],
        ],
      );
    });
  });

  test("048 on a database whose 046 built the in-flight indexes in its transaction: found valid, only recorded", async () => {
    await withDatabase(async (database) => {
      const db = database.db;
      await migrateToLatest(
        db as never,
        MIGRATION_NAMES.filter((n) => n < "048"),
      );
      // What 046 ran until the nineteenth session.
      await sql`create index push_batch_movements_in_flight on push_batch_movements
        (store_id, inventory_item_id, location_id) where in_flight`.execute(db);
      await sql`create index stock_movements_sent_alone on stock_movements (store_id, inventory_item_id, location_id)
        where push_sent_at is not null and (pushed_at is null) is true`.execute(db);
      const before = await indexesOf(database, [
        "push_batch_movements_in_flight",
        "stock_movements_sent_alone",
      ]);

      await migrateToLatest(db as never);
      assert.deepEqual(await recorded(database), MIGRATION_NAMES);
      assert.deepEqual(
        await indexesOf(database, ["push_batch_movements_in_flight", "stock_movements_sent_alone"]),
        before,
        "the same index objects, not rebuilt",
      );
    });
  });
});

/** The test tables' migrations: a table with rows, an index built concurrently, then a plain step. */
function indexedTable(options: { unique: boolean; rows: number }): NamedMigration[] {
  return [
    {
      name: "001_things",
      steps: [
        "create table things (id bigint generated by default as identity primary key, code int not null)",
        `insert into things (code) select g % 100 from generate_series(1, ${options.rows}) g`,
      ],
    },
    {
      name: "002_things_code",
      steps: { indexBuilds: [{ name: "things_code", unique: options.unique, on: "things (code)" }] },
    },
    // Fails if run twice: proves a migration after the builds is recorded once.
    { name: "003_things_note", steps: ["alter table things add column note text"] },
  ];
}

/** Each named index's oid and whether it is valid (absent ones left out). */
async function indexesOf(database: Database, names: string[]): Promise<Record<string, string>> {
  const { rows } = await sql<{ name: string; oid: string; valid: boolean }>`
    select c.relname as name, c.oid::text as oid, i.indisvalid as valid from pg_index i
    join pg_class c on c.oid = i.indexrelid
    where c.relnamespace = current_schema()::regnamespace and c.relname in (${sql.join(names)})
    order by c.relname`.execute(database.db);
  return Object.fromEntries(rows.map((r) => [r.name, `${r.oid} ${r.valid ? "valid" : "INVALID"}`]));
}

async function validity(database: Database, name: string): Promise<string | undefined> {
  return (await indexesOf(database, [name]))[name]?.split(" ")[1];
}

/**
 * Indexes a statements migration builds on tables it did not create itself: each such build holds
 * the table's writes for its length (docs/developing.md, "Migrations": they go in an index-build
 * migration of their own).
 */
function plainBuildsOnExistingTables(statements: readonly string[]): string[] {
  const text = statements.join("\n").toLowerCase();
  const created = new Set(
    [...text.matchAll(/create\s+table\s+(?:if\s+not\s+exists\s+)?(\w+)/g)].map((m) => m[1]),
  );
  return [
    ...text.matchAll(
      /create\s+(?:unique\s+)?index\s+(?:concurrently\s+)?(?:if\s+not\s+exists\s+)?(\w+)\s+on\s+(?:only\s+)?(\w+)/g,
    ),
  ]
    .filter((m) => !created.has(m[2]))
    .map((m) => `${m[1]} on ${m[2]}`);
}

describe("the rule for new migrations", () => {
  test("from 049 on, a statements migration indexes only tables it creates", () => {
    assert.deepEqual(
      plainBuildsOnExistingTables([
        "create table things (id int, code int)",
        "create index things_code on things (code)",
        "CREATE UNIQUE INDEX stock_movements_x ON stock_movements (store_id, id)",
        "alter table variants add column x int",
      ]),
      ["stock_movements_x on stock_movements"],
    );
    // 046 built two (moved to 048 since); 019 and the like are older than the rule.
    assert.deepEqual(plainBuildsOnExistingTables(["create index a on push_batch_movements (store_id)"]), [
      "a on push_batch_movements",
    ]);
    for (const name of MIGRATION_NAMES.filter((n) => Number(n.slice(0, 3)) >= 49)) {
      const steps = migrationSteps(name);
      if ("indexBuilds" in steps) continue;
      assert.deepEqual(plainBuildsOnExistingTables(steps), [], `${name}: use an index-build migration`);
    }
  });
});

describe(`migrations that build indexes outside a transaction (${where})`, () => {
  test("a concurrent build runs, is recorded after it, and a second run changes nothing", async () => {
    await withDatabase(async (database) => {
      const migrations = indexedTable({ unique: false, rows: 1_000 });
      await runMigrations(database.db as never, migrations);
      assert.deepEqual(await recorded(database), ["001_things", "002_things_code", "003_things_note"]);
      assert.equal(await validity(database, "things_code"), "valid");
      // Every transaction of the run ended, the one after the build too (VACUUM refuses to run inside
      // one): on PGlite that one's COMMIT was never sent, and its migration was left uncommitted.
      await sql`vacuum things`.execute(database.db);
      const built = await indexesOf(database, ["things_code"]);
      await runMigrations(database.db as never, migrations);
      assert.deepEqual(await indexesOf(database, ["things_code"]), built);
      assert.deepEqual(await recorded(database), ["001_things", "002_things_code", "003_things_note"]);
    });
  });

  test("an INVALID index a failed concurrent build left is dropped and built again on the next start", async () => {
    await withDatabase(async (database) => {
      const db = database.db as never;
      // 1,000 rows over 100 codes: the unique build fails at its end, leaving its index INVALID.
      const migrations = indexedTable({ unique: true, rows: 1_000 });
      await assert.rejects(runMigrations(db, migrations), (error: Error) => {
        assert.match(
          error.message,
          /^migration 002_things_code failed: could not create unique index "things_code"/,
        );
        return true;
      });
      assert.deepEqual(await recorded(database), ["001_things"], "the failed build is not recorded");
      assert.equal(await validity(database, "things_code"), "INVALID");

      // The cause mended (an operator's fix), the next start builds it again.
      await sql`delete from things where id > 100`.execute(database.db);
      await runMigrations(db, migrations);
      assert.deepEqual(await recorded(database), ["001_things", "002_things_code", "003_things_note"]);
      assert.equal(await validity(database, "things_code"), "valid");
      await assert.rejects(sql`insert into things (code) values (7)`.execute(database.db), /duplicate key/);
    });
  });

  // PGlite: one process owns an embedded database (pglite-lock.ts; data-dir-lock.test.ts).
  test("two processes starting together run each migration once", { skip: !databaseUrl }, async () => {
    await withDatabase(async (database, schema) => {
      const migrations = indexedTable({ unique: false, rows: 20_000 });
      // A second process's handle on the same schema: connections of its own.
      const other = await openDatabase({ databaseUrl, dataDir: ":memory:", schema });
      try {
        await Promise.all([
          runMigrations(database.db as never, migrations),
          runMigrations(other.db as never, migrations),
        ]);
      } finally {
        await other.close();
      }
      assert.deepEqual(await recorded(database), ["001_things", "002_things_code", "003_things_note"]);
      assert.equal(await validity(database, "things_code"), "valid");
    });
  });

  test("writes to the table go on while its index builds", { skip: !databaseUrl }, async () => {
    await withDatabase(async (database, schema) => {
      const [first, build] = indexedTable({ unique: false, rows: 1_000 });
      await runMigrations(database.db as never, [first]);
      // A write in flight when the migration starts: the build waits for it to end (both forms do).
      // Another write meanwhile: behind a plain build's SHARE lock (queued behind the first write) it
      // would wait for the whole build; beside a concurrent one it goes through.
      const rows = await writeWhileMigrationWaits(schema, {
        holder: "insert into things (code) values (1)",
        waiting: "create index%things_code%",
        migrate: () => runMigrations(database.db as never, [first, build]),
      });
      assert.equal(await validity(database, "things_code"), "valid");
      assert.equal(rows, 1_002);
    });
  });
});

describe(`migrations that drop indexes outside a transaction (${where})`, () => {
  /** The test table with its index, then a migration that drops it. */
  const dropping = (): NamedMigration[] => [
    ...indexedTable({ unique: false, rows: 1_000 }),
    { name: "004_things_code_gone", steps: { indexBuilds: [], indexDrops: ["things_code"] } },
  ];

  test("a drop runs, is recorded after it, and a second run changes nothing", async () => {
    await withDatabase(async (database) => {
      await runMigrations(database.db as never, dropping());
      assert.deepEqual(await recorded(database), [
        "001_things",
        "002_things_code",
        "003_things_note",
        "004_things_code_gone",
      ]);
      assert.deepEqual(await indexesOf(database, ["things_code"]), {});
      await runMigrations(database.db as never, dropping());
      assert.equal((await recorded(database)).length, 4);
    });
  });

  test("reads and writes of the table go on while its index drop waits", { skip: !databaseUrl }, async () => {
    await withDatabase(async (database, schema) => {
      const migrations = dropping();
      await runMigrations(database.db as never, migrations.slice(0, 3));
      // A reader in flight when the migration starts (a long report): the drop waits for it. A plain
      // drop's ACCESS EXCLUSIVE request, queued behind the reader, would hold the write (and every
      // read) until the reader ended; beside a concurrent drop it goes through.
      const rows = await writeWhileMigrationWaits(schema, {
        holder: "select count(*) from things",
        waiting: "drop index%things_code%",
        migrate: () => runMigrations(database.db as never, migrations),
      });
      assert.deepEqual(await indexesOf(database, ["things_code"]), {});
      assert.equal((await recorded(database)).length, 4);
      assert.equal(rows, 1_001);
    });
  });
});

/**
 * Opens a transaction on `things` with `holder` (PostgreSQL), starts `migrate`, waits until the
 * migration's statement (`waiting`, a LIKE pattern) is blocked by that transaction (not another run's
 * statement of the same name in its schema), then writes a row from a third connection that gives up
 * after 3 s: a lock queued behind the open transaction would make it fail. Then ends the transaction,
 * lets the migration finish, and answers how many rows the table has.
 */
async function writeWhileMigrationWaits(
  schema: string,
  step: { holder: string; waiting: string; migrate: () => Promise<void> },
): Promise<number> {
  const client = async () => {
    const c = new pg.Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
    await c.connect();
    return c;
  };
  const early = await client();
  const later = await client();
  try {
    await early.query("begin");
    await early.query(step.holder);
    const running = step.migrate();
    const earlyPid = (await early.query("select pg_backend_pid() as pid")).rows[0].pid;
    await waitFor(async () => {
      const { rows } = await later.query(
        `select 1 from pg_stat_activity where query like $2 and $1 = any(pg_blocking_pids(pid))`,
        [earlyPid, step.waiting],
      );
      return rows.length > 0;
    });
    await later.query("set statement_timeout = 3000");
    await later.query("insert into things (code) values (2)");
    await early.query("commit");
    await running;
    const { rows } = await later.query("select count(*)::int as n from things");
    return rows[0].n;
  } finally {
    await early.end();
    await later.end();
  }
}

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("condition not met in 5 s");
}
