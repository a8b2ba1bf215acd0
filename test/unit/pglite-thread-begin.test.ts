/**
 * The embedded database's thread (src/db/pglite-thread.ts) sends a transaction's BEGIN with its first
 * statement, in one message: a write transaction crosses to the thread and back once fewer. Checked
 * by counting the messages posted to the thread, and that the transaction is still one: its writes
 * commit or roll back together, an error inside it aborts it, and an empty one is harmless.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { PGliteThread } from "../../src/db/pglite-thread.ts";
import { watchPosts } from "../helpers/pglite-posts.ts";

let thread: PGliteThread;
let posted: string[] = [];

before(async () => {
  thread = new PGliteThread({ dataDir: undefined });
  await thread.waitReady;
  watchPosts(thread, (statement) => posted.push(statement));
  await thread.query("create table notes (id int primary key, body text not null)");
});

after(() => thread.close());

const bodies = async () =>
  (await thread.query<{ body: string }>("select body from notes order by id")).rows.map((r) => r.body);

describe("PGlite thread: a transaction's BEGIN goes with its first statement", () => {
  test("begin, two inserts, commit: three messages, and both rows committed", async () => {
    posted = [];
    assert.deepEqual(await thread.query("begin"), { rows: [] });
    await thread.query("insert into notes values ($1, $2)", [1, "a"]);
    await thread.query("insert into notes values ($1, $2)", [2, "b"]);
    await thread.query("commit");
    assert.deepEqual(posted, [
      "begin + insert into notes values ($1, $2)",
      "insert into notes values ($1, $2)",
      "commit",
    ]);
    assert.deepEqual(await bodies(), ["a", "b"]);
  });

  test("an isolation level is kept, and a rollback undoes the transaction's writes", async () => {
    posted = [];
    await thread.query("begin isolation level serializable");
    const { rows } = await thread.query<{ level: string }>(
      "select current_setting('transaction_isolation') as level",
    );
    assert.deepEqual(rows, [{ level: "serializable" }]);
    await thread.query("insert into notes values ($1, $2)", [3, "c"]);
    await thread.query("rollback");
    assert.equal(
      posted[0],
      "begin isolation level serializable + select current_setting('transaction_isolation') as level",
    );
    assert.deepEqual(await bodies(), ["a", "b"]);
  });

  test("an error in the first statement aborts the transaction it opened", async () => {
    await thread.query("begin");
    await assert.rejects(thread.query("insert into notes values ($1, $2)", [1, "dup"]), { code: "23505" });
    await assert.rejects(thread.query("select 1 as one"), { code: "25P02" });
    await thread.query("rollback");
    assert.deepEqual(await bodies(), ["a", "b"]);
  });

  test("an empty transaction: begin and commit go together", async () => {
    posted = [];
    await thread.query("begin");
    await thread.query("commit");
    assert.deepEqual(posted, ["begin + commit"]);
    assert.deepEqual((await thread.query("select 1 as one")).rows, [{ one: 1 }]);
  });
});
