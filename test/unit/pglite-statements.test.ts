/**
 * The embedded database's statements run as named prepared statements (src/db/pglite-statements.ts):
 * the rows must be exactly what `PGlite.query()` gave, each text prepared once, the kept set bounded,
 * and the two cases where a kept statement would go wrong (a generic plan for a partial-index upsert, a
 * schema change under a kept `select *`) must still run.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { PGlite } from "@electric-sql/pglite";
import { PGliteStatements } from "../../src/db/pglite-statements.ts";

// The parsers the service's thread gives its PGlite (pglite-worker.ts).
const parsers = { 20: (v: string) => Number(v), 1082: (v: string) => v, 1700: (v: string) => v };

let db: PGlite;
let statements: PGliteStatements;

async function prepared(): Promise<string[]> {
  const { rows } = await db.query<{ statement: string }>(
    "select statement from pg_prepared_statements order by statement",
  );
  return rows.map((r) => r.statement);
}

before(async () => {
  db = new PGlite({ parsers });
  await db.waitReady;
  await db.exec(`
    create table items (id bigint generated always as identity primary key, name text not null unique,
      price numeric(12, 4), due date, at timestamptz, tags text[], doc jsonb, counts int[], done boolean);
    create table jobs (id serial primary key, key text not null, state text not null);
    create unique index jobs_queued on jobs (key) where state = 'queued';
  `);
  statements = new PGliteStatements(db, 5);
});

after(() => db.close());

describe("PGlite statements prepared once", () => {
  test("rows, types and affected rows are what PGlite.query() gives", async () => {
    const insert =
      "insert into items (name, price, due, at, tags, doc, counts, done) values ($1, $2, $3, $4, $5, $6, $7, $8) returning *";
    const values = [
      "a",
      "12.3456",
      "2026-11-26",
      new Date("2026-11-26T10:00:00Z"),
      ["x", "y"],
      { k: [1] },
      [1, 2],
      true,
    ];
    const ours = await statements.run(insert, values);
    const theirs = await db.query(insert, ["b", ...values.slice(1)]);
    assert.deepEqual(ours.rows, [{ ...(theirs.rows[0] as object), id: 1, name: "a" }]);
    assert.equal(ours.affectedRows, theirs.affectedRows);
    assert.deepEqual(ours.rows[0], {
      id: 1,
      name: "a",
      price: "12.3456",
      due: "2026-11-26",
      at: new Date("2026-11-26T10:00:00Z"),
      tags: ["x", "y"],
      doc: { k: [1] },
      counts: [1, 2],
      done: true,
    });
    const nulls = await statements.run("select $1::text as t, $2::bigint as n", [null, undefined]);
    assert.deepEqual(nulls.rows, [{ t: null, n: null }]);
    const updated = await statements.run("update items set done = $1 where done", [false]);
    assert.deepEqual(updated, { rows: [], affectedRows: 2 });
  });

  test("a text is prepared once and reused; BEGIN and the like are not kept", async () => {
    const before = (await prepared()).length;
    for (let i = 0; i < 4; i++) await statements.run("select name from items where id = $1", [1]);
    await statements.run("begin", []);
    await statements.run("commit", []);
    const now = await prepared();
    assert.equal(now.length, before + 1);
    assert.ok(now.includes("select name from items where id = $1"));
  });

  test("at most `keep` statements stay prepared: the least recently used is closed", async () => {
    for (let i = 0; i < 12; i++) await statements.run(`select ${i} + $1::int as n`, [1]);
    const kept = await prepared();
    assert.equal(kept.length, 5);
    // The last five texts, the closes of the others having gone ahead of later statements.
    assert.deepEqual(kept, [7, 8, 9, 10, 11].map((i) => `select ${i} + $1::int as n`).sort());
  });

  test("an upsert on a partial unique index runs past PostgreSQL's fifth (generic-plan) run", async () => {
    const upsert = `insert into jobs (key, state) values ($1, $2) on conflict (key) where state = $3 do nothing`;
    for (let i = 0; i < 8; i++) await statements.run(upsert, [`k${i % 2}`, "queued", "queued"]);
    const { rows } = await db.query("select key from jobs order by key");
    assert.deepEqual(rows, [{ key: "k0" }, { key: "k1" }]);
  });

  test("a run with an array of over 1,000 values is planned with them, not by the kept generic plan", async () => {
    await db.exec(`
      create table moves (id bigint primary key, store int not null, done boolean not null);
      create index moves_open on moves (store) where not done;
      insert into moves select i, 1, false from generate_series(1, 3000) i;
    `);
    const open =
      "select count(*)::int as n from moves where store = $1 and id = any($2::bigint[]) and not done";
    const plans = async () => {
      const { rows } = await db.query<{ generic_plans: number; custom_plans: number }>(
        "select generic_plans, custom_plans from pg_prepared_statements where statement = $1",
        [open],
      );
      return rows[0];
    };
    // Short arrays: kept, and from the sixth run on PostgreSQL uses its generic plan.
    for (let i = 0; i < 7; i++)
      assert.deepEqual((await statements.run(open, [1, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]])).rows, [{ n: 10 }]);
    const kept = await plans();
    assert.ok(kept.generic_plans >= 1, `generic plans: ${kept.generic_plans}`);
    // A generic plan checks each open row against every value of $2 in turn (3,000 x 3,000 here);
    // this run is planned with its values (hashed) and leaves the kept statement's counts alone.
    const all = Array.from({ length: 3000 }, (_, i) => i + 1);
    assert.deepEqual((await statements.run(open, [1, all])).rows, [{ n: 3000 }]);
    assert.deepEqual(await plans(), kept);
  });

  test("a schema change under a kept statement: the next run describes the new shape", async () => {
    const all = "select * from jobs where id = $1";
    assert.deepEqual(Object.keys((await statements.run(all, [1])).rows[0] as object), ["id", "key", "state"]);
    await statements.run("alter table jobs add column note text", []);
    assert.deepEqual(Object.keys((await statements.run(all, [1])).rows[0] as object), [
      "id",
      "key",
      "state",
      "note",
    ]);
  });

  test("an error is thrown with its SQLSTATE and the session goes on; in a transaction it aborts it", async () => {
    const insert = "insert into items (name) values ($1)";
    await assert.rejects(statements.run(insert, ["a"]), { code: "23505" });
    assert.deepEqual((await statements.run("select count(*)::int as n from items", [])).rows, [{ n: 2 }]);
    await statements.run("begin", []);
    await assert.rejects(statements.run(insert, ["a"]), { code: "23505" });
    await assert.rejects(statements.run("select 1 as one", []), { code: "25P02" });
    await statements.run("rollback", []);
    assert.deepEqual((await statements.run("select 1 as one", [])).rows, [{ one: 1 }]);
  });
});
