/**
 * Counts the SQL statements a request runs, at the driver (as bench/queries.ts does): every statement
 * to the embedded database crosses to its thread through PGliteThread.query, every statement to
 * PostgreSQL goes through pg's Client.query. Import this module before starting the app (pool clients
 * bind their query function when they connect), run one request at a time with the workers off, and
 * flush the request log first so its buffered insert is not counted.
 */
import type pg from "pg";
import { pgDriver } from "../../src/db/pg-driver.ts";
import { PGliteThread } from "../../src/db/pglite-thread.ts";
import { queryAndSee } from "./pg-answers.ts";

let recording: string[] | null = null;
/** Statements sent to PostgreSQL under a name (prepared once per connection), while recording. */
let recordingNamed: string[] | null = null;
/** Each PostgreSQL statement's columns as its answer described them, while recording. */
let recordingColumns: Array<{ statement: string; columns: string[] }> | null = null;

function note(text: unknown, named = false): void {
  if (!recording || typeof text !== "string") return;
  const statement = text.replace(/\s+/g, " ").trim();
  recording.push(statement);
  if (named) recordingNamed?.push(statement);
}

const threadQuery = PGliteThread.prototype.query;
PGliteThread.prototype.query = function (this: PGliteThread, sql: string, params?: unknown[]) {
  note(sql);
  return threadQuery.call(this, sql, params);
} as typeof PGliteThread.prototype.query;

/** pg's Client.query recording what it sends; the driver is loaded only for a PostgreSQL run. */
function recordPostgresStatements(): void {
  const { Client } = pgDriver();
  const clientQuery = Client.prototype.query as (...args: unknown[]) => unknown;
  Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string; name?: string } | undefined;
    const text = typeof first === "string" ? first : first?.text;
    if (typeof first === "string") note(first);
    else note(first?.text, first?.name !== undefined);
    const columns = recordingColumns;
    return queryAndSee<pg.QueryResult>(clientQuery, this, args, (result) => {
      if (columns && typeof text === "string" && result?.fields)
        columns.push({
          statement: text.replace(/\s+/g, " ").trim(),
          columns: result.fields.map((f) => f.name),
        });
    });
  } as typeof Client.prototype.query;
}
if (process.env.TEST_DATABASE_URL) recordPostgresStatements();

const CONTROL = /^(begin|commit|rollback|savepoint|release savepoint)\b/i;

export interface Counted<T> {
  result: T;
  /** Statements other than transaction control. */
  statements: string[];
  /** Every statement sent, transaction control included, in order. */
  all: string[];
  /** Statements sent as named prepared statements (PostgreSQL; the embedded database has no names). */
  named: string[];
  /** PostgreSQL statements with the columns their answers described (none on the embedded database). */
  columns: Array<{ statement: string; columns: string[] }>;
  /** BEGINs and COMMITs. */
  begins: number;
  commits: number;
}

/** Runs `work` and returns what it sent to the database. */
export async function countStatements<T>(work: () => Promise<T>): Promise<Counted<T>> {
  const seen: string[] = [];
  const named: string[] = [];
  const columns: Array<{ statement: string; columns: string[] }> = [];
  recording = seen;
  recordingNamed = named;
  recordingColumns = columns;
  let result: T;
  try {
    result = await work();
  } finally {
    recording = null;
    recordingNamed = null;
    recordingColumns = null;
  }
  return {
    result,
    statements: seen.filter((s) => !CONTROL.test(s)),
    all: seen,
    named,
    columns,
    begins: seen.filter((s) => /^begin\b/i.test(s)).length,
    commits: seen.filter((s) => /^commit\b/i.test(s)).length,
  };
}
