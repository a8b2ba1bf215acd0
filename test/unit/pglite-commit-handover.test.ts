/**
 * On the embedded database a transaction hands the one connection on as soon as its COMMIT (or
 * ROLLBACK) is sent, not when its answer is back (src/db/pglite-dialect.ts, PGliteConnection.end):
 * the next holder's statements go to the thread meanwhile and run after it. Checked through Kysely
 * over the thread, as the service uses it: the order of the messages posted to the thread and of the
 * answers, that each transaction still commits or rolls back alone, and that a COMMIT that fails
 * fails its own transaction and nothing sent after it.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Kysely, sql } from "kysely";
import { ConnectionTurns, PGliteDialect } from "../../src/db/pglite-dialect.ts";
import { PGliteThread } from "../../src/db/pglite-thread.ts";
import { watchPosts } from "../helpers/pglite-posts.ts";

interface Tables {
  notes: { id: number; body: string };
}

let thread: PGliteThread;
let db: Kysely<Tables>;
/**
 * What happened, in order: "post <statement>" as sent to the thread, "answer <statement>" as
 * received, "release" when the connection's turn was handed back.
 */
let events: string[] = [];

before(async () => {
  thread = new PGliteThread({ dataDir: undefined });
  await thread.waitReady;
  watchPosts(thread, (statement) => events.push(`post ${statement}`));
  const query = thread.query.bind(thread);
  thread.query = (async (text: string, parameters?: unknown[], name?: string) => {
    try {
      return await query(text, parameters, name);
    } finally {
      events.push(`answer ${text}`);
    }
  }) as typeof thread.query;
  // When the connection's turn is handed back, among the posts and answers.
  const turns = new ConnectionTurns();
  const release = turns.release.bind(turns);
  turns.release = (turn) => {
    events.push("release");
    release(turn);
  };
  db = new Kysely<Tables>({ dialect: new PGliteDialect(thread, turns, "foreground") });
  await sql`create table notes (id int primary key, body text not null)`.execute(db);
  // Checked at COMMIT: a row pointing at a missing note fails the COMMIT, not the insert.
  await sql`create table links (note_id int not null references notes (id) deferrable initially deferred)`.execute(
    db,
  );
});

after(async () => {
  await db.destroy();
  await thread.close();
});

const insertNote = (trx: Kysely<Tables>, id: number, body: string) =>
  trx.insertInto("notes").values({ id, body }).execute();
const bodies = async () =>
  (await db.selectFrom("notes").select("body").orderBy("id").execute()).map((r) => r.body);

describe("PGlite: the connection is handed on when a transaction's COMMIT is sent", () => {
  test("the turn is handed back as the COMMIT is posted, before its answer; the next transaction runs after it", async () => {
    events = [];
    await Promise.all([
      db.transaction().execute((trx) => insertNote(trx, 1, "a")),
      db.transaction().execute(async (trx) => {
        // Runs after the first transaction's COMMIT: it sees the first row committed.
        const seen = await trx.selectFrom("notes").select("body").execute();
        assert.deepEqual(seen, [{ body: "a" }]);
        await insertNote(trx, 2, "b");
      }),
    ]);
    const posted = events.filter((e) => e.startsWith("post "));
    assert.deepEqual(posted, [
      'post begin + insert into "notes" ("id", "body") values ($1, $2)',
      "post commit",
      'post begin + select "body" from "notes"',
      'post insert into "notes" ("id", "body") values ($1, $2)',
      "post commit",
    ]);
    // Handed on as the COMMIT left, before its answer came back (on main: after it).
    const commit = events.indexOf("post commit");
    assert.equal(events[commit + 1], "release", events.join("\n"));
    assert.ok(commit + 1 < events.indexOf("answer commit"), events.join("\n"));
    assert.deepEqual(await bodies(), ["a", "b"]);
  });

  test("a rollback undoes only its own transaction; the one after it commits", async () => {
    events = [];
    const results = await Promise.allSettled([
      db.transaction().execute(async (trx) => {
        await insertNote(trx, 3, "c");
        throw new Error("changed my mind");
      }),
      db.transaction().execute((trx) => insertNote(trx, 4, "d")),
    ]);
    assert.equal(results[0].status, "rejected");
    assert.equal(results[1].status, "fulfilled");
    assert.deepEqual(
      events.filter((e) => e.startsWith("post ")),
      [
        'post begin + insert into "notes" ("id", "body") values ($1, $2)',
        "post rollback",
        'post begin + insert into "notes" ("id", "body") values ($1, $2)',
        "post commit",
      ],
    );
    assert.deepEqual(await bodies(), ["a", "b", "d"]);
  });

  test("a COMMIT that fails fails its transaction, sends no ROLLBACK after it, and leaves the next one alone", async () => {
    events = [];
    const results = await Promise.allSettled([
      db.transaction().execute(async (trx) => {
        await insertNote(trx, 5, "e");
        await sql`insert into links (note_id) values (${999})`.execute(trx);
      }),
      db.transaction().execute((trx) => insertNote(trx, 6, "f")),
    ]);
    assert.equal(results[0].status, "rejected");
    assert.equal((results[0] as PromiseRejectedResult).reason.code, "23503");
    assert.equal(results[1].status, "fulfilled");
    const posted = events.filter((e) => e.startsWith("post "));
    assert.deepEqual(posted, [
      'post begin + insert into "notes" ("id", "body") values ($1, $2)',
      "post insert into links (note_id) values ($1)",
      "post commit",
      'post begin + insert into "notes" ("id", "body") values ($1, $2)',
      "post commit",
    ]);
    // The failed COMMIT rolled its transaction back; the next one committed.
    assert.deepEqual(await bodies(), ["a", "b", "d", "f"]);
    assert.deepEqual((await sql<{ n: number }>`select count(*)::int as n from links`.execute(db)).rows, [
      { n: 0 },
    ]);
  });
});
