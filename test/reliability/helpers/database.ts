/**
 * A fresh PostgreSQL database per test (`rel_<random>`), created on the server of TEST_DATABASE_URL
 * (default postgres://postgres@127.0.0.1:5432/test) and dropped afterwards, so spawned service
 * processes get an empty database of their own and nothing is left behind.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

export const BASE_DATABASE_URL =
  process.env.TEST_DATABASE_URL && process.env.TEST_DATABASE_URL !== ""
    ? process.env.TEST_DATABASE_URL
    : "postgres://postgres@127.0.0.1:5432/test";

// Counts come back as int8: read them as numbers, as the service does.
pg.types.setTypeParser(20, (v) => Number(v));

export interface TestDatabase {
  name: string;
  url: string;
  /** A small pool for the test's own checks. */
  pool: pg.Pool;
  query<T extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

async function onServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: BASE_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createDatabase(): Promise<TestDatabase> {
  const name = `rel_${randomBytes(5).toString("hex")}`;
  await onServer((c) => c.query(`create database ${name}`));
  const url = new URL(BASE_DATABASE_URL);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 3 });
  // A PostgreSQL restart (the dependency test) must not crash the test process through an idle client.
  pool.on("error", () => {});
  return {
    name,
    url: url.toString(),
    pool,
    async query(text, values) {
      return (await pool.query(text, values as unknown[])).rows;
    },
    async drop() {
      await pool.end().catch(() => {});
      await onServer((c) => c.query(`drop database if exists ${name} with (force)`));
    },
  };
}
