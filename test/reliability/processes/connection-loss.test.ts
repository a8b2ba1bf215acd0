import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { openDatabase } from "../../../src/db/database.ts";
import { createDatabase, type TestDatabase } from "../helpers/database.ts";

/**
 * The server dropping a connection that is checked out between two statements of a transaction (what a
 * PostgreSQL restart does to every busy connection) must fail that transaction, not the process: pg emits
 * 'error' on the client, which crashes Node when nobody listens.
 */
describe("a PostgreSQL connection lost in the middle of a transaction", () => {
  let database: TestDatabase;
  before(async () => {
    database = await createDatabase();
  });
  after(() => database.drop());

  test("fails that transaction only; the pool serves the next query", async () => {
    const handle = await openDatabase({ databaseUrl: database.url, dataDir: ":memory:", poolSize: 2 });
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", onUncaught);
    try {
      const outcome = await handle.db
        .transaction()
        .execute(async (trx) => {
          const { rows } = await (await import("kysely")).sql<{
            pid: number;
          }>`select pg_backend_pid() as pid`.execute(trx);
          // Another session terminates ours while it sits idle inside the transaction.
          await database.query("select pg_terminate_backend($1)", [rows[0].pid]);
          await new Promise((r) => setTimeout(r, 300));
          await (await import("kysely")).sql`select 1`.execute(trx);
          return "committed";
        })
        .catch((error: Error) => `failed: ${error.message}`);
      assert.match(outcome, /^failed: /);
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(uncaught, [], "no uncaught 'error' event");
      const { rows } = await (await import("kysely")).sql<{ one: number }>`select 1 as one`.execute(
        handle.db,
      );
      assert.equal(rows[0].one, 1);
    } finally {
      process.off("uncaughtException", onUncaught);
      await handle.close();
    }
  });
});
