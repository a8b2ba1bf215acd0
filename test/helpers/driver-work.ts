/**
 * What the PostgreSQL driver builds on the event loop while a request runs: the values it converts
 * (rows × columns of every result) and the characters of JSON it parses (json and jsonb columns go
 * through JSON.parse). A 500-line order's rows are that work. Import this module before starting the
 * app (pool clients bind their query function when they connect, and the JSON parsers are looked up
 * per result), run one request at a time with the workers off. The embedded database builds its rows
 * on its own thread, and the event loop receives them as a structured copy, which it rebuilds value
 * by value: its rows' values are counted as they arrive (its JSON is parsed on its thread: not counted),
 * and so are the characters of the strings among them, each a copy made in the loop's heap (a column
 * the thread hands over as bytes, db/text-bytes.ts, is not one).
 */
import pg from "pg";
import { PGliteThread } from "../../src/db/pglite-thread.ts";
import { queryAndSee } from "./pg-answers.ts";

interface Tally {
  values: number;
  jsonChars: number;
  /**
   * Characters of the strings among the rows' values: those the embedded database's rows brought to
   * the event loop, and those PostgreSQL's driver decoded (every text it gives is a string).
   */
  textChars: number;
  /**
   * The longest string among the rows' values, on either database: V8 puts a string of more than
   * ~128 KB straight into its old generation (its large-object space), which only a full collection
   * frees.
   */
  longestText: number;
  /**
   * The biggest data message of a PostgreSQL COPY (db/copy-binary.ts), in bytes: the driver's parser
   * doubles its buffer while a message bigger than a socket read (64 KB) arrives.
   */
  largestCopyData: number;
}

let recording: Tally | null = null;

for (const oid of [114, 3802]) {
  const parse = pg.types.getTypeParser(oid);
  pg.types.setTypeParser(oid, (text: string) => {
    if (recording) recording.jsonChars += text.length;
    return parse(text);
  });
}

function countResult(result: unknown): void {
  if (!recording) return;
  for (const r of Array.isArray(result) ? result : [result]) {
    const { rows, fields } = (r ?? {}) as { rows?: unknown[]; fields?: unknown[] };
    if (rows && fields) recording.values += rows.length * fields.length;
    for (const row of rows ?? []) {
      countTexts(row);
      for (const value of Object.values(row as object))
        if (typeof value === "string") recording.textChars += value.length;
    }
  }
}

function countTexts(row: unknown): void {
  if (!recording || typeof row !== "object" || row === null) return;
  for (const value of Object.values(row))
    if (typeof value === "string") recording.longestText = Math.max(recording.longestText, value.length);
}

const clientQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  return queryAndSee(clientQuery, this, args, countResult);
} as typeof pg.Client.prototype.query;

type CopyDataHandler = (message: { chunk: Buffer }, ...rest: unknown[]) => void;
const clientCopyData = (pg.Client.prototype as unknown as { _handleCopyData: CopyDataHandler })
  ._handleCopyData;
(pg.Client.prototype as unknown as { _handleCopyData: CopyDataHandler })._handleCopyData = function (
  this: pg.Client,
  message,
  ...rest
) {
  if (recording) recording.largestCopyData = Math.max(recording.largestCopyData, message.chunk.byteLength);
  return clientCopyData.call(this, message, ...rest);
};

const threadQuery = PGliteThread.prototype.query;
PGliteThread.prototype.query = function (this: PGliteThread, ...args: Parameters<typeof threadQuery>) {
  const returned = threadQuery.apply(this, args);
  returned.then(
    (result) => {
      if (!recording) return;
      for (const row of result.rows) {
        const values = Object.values(row as object);
        recording.values += values.length;
        for (const value of values) if (typeof value === "string") recording.textChars += value.length;
        countTexts(row);
      }
    },
    () => {},
  );
  return returned;
} as typeof threadQuery;

/** Runs `work` and returns what the driver built meanwhile. */
export async function driverWork<T>(work: () => Promise<T>): Promise<Tally & { result: T }> {
  const tally: Tally = { values: 0, jsonChars: 0, textChars: 0, longestText: 0, largestCopyData: 0 };
  recording = tally;
  try {
    const result = await work();
    return { ...tally, result };
  } finally {
    recording = null;
  }
}
