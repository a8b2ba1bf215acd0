import { parentPort, workerData } from "node:worker_threads";
import { ensureDatabaseFiles } from "./pglite-initdb.ts";
import { PGliteStatements } from "./pglite-statements.ts";
import type { PGliteRequest, PGliteResponse, PGliteThreadOptions } from "./pglite-thread.ts";
import { BYTES_COLUMN_SUFFIX } from "./text-bytes.ts";

/**
 * The embedded database's thread (pglite-thread.ts): PGlite runs here, so its queries (WebAssembly,
 * synchronous while they run) never hold the API's event loop. One statement at a time, in arrival
 * order; the API side hands out the one connection (pglite-dialect.ts). Built as its own bundle
 * (scripts/build.mjs) beside dist/server.mjs.
 */

// As database.ts reads them from PostgreSQL: int8 as a number, dates as plain strings, numerics as
// strings (money never passes through a float).
const INT8 = 20;
const DATE = 1082;
const NUMERIC = 1700;

/**
 * PostgreSQL's default 128 MB of shared buffers is most of an idle embedded database's memory (the
 * WebAssembly heap never gives back a page it touched). 16 MB holds a small store's hot pages; the
 * rest are read through the operating system's file cache. Measured on an existing database: 308 MB
 * resident at the default, 170 MB at 16 MB, 162 MB at 8 MB (docs/history/performance-journal.md,
 * "Notes and caveats").
 */
const SETTINGS = ["shared_buffers=16MB"];

/** The fields of a PostgreSQL error the service reads (its SQLSTATE above all), copied across. */
const ERROR_FIELDS = [
  "code",
  "detail",
  "hint",
  "constraint",
  "table",
  "column",
  "schema",
  "severity",
] as const;

function errorOf(error: unknown): Extract<PGliteResponse, { error: unknown }>["error"] {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields: Record<string, string> = {};
  for (const field of ERROR_FIELDS) {
    const value = (error as unknown as Record<string, unknown>)[field];
    if (typeof value === "string") fields[field] = value;
  }
  return { message: error.message, fields };
}

const utf8 = new TextEncoder();

/**
 * The rows' text in columns named `…_utf8` turned into UTF-8 bytes in place (db/text-bytes.ts), and
 * the buffers to hand over with them: a big order's lines' JSON text then reaches the event loop
 * without being copied into its heap.
 */
function textColumnsAsBytes(rows: unknown[]): ArrayBuffer[] {
  const first = rows[0];
  if (typeof first !== "object" || first === null) return [];
  const columns = Object.keys(first).filter((name) => name.endsWith(BYTES_COLUMN_SUFFIX));
  if (columns.length === 0) return [];
  const buffers: ArrayBuffer[] = [];
  for (const row of rows as Record<string, unknown>[])
    for (const column of columns) {
      const value = row[column];
      if (typeof value !== "string") continue;
      const bytes = utf8.encode(value);
      row[column] = bytes;
      buffers.push(bytes.buffer as ArrayBuffer);
    }
  return buffers;
}

async function serve(options: PGliteThreadOptions): Promise<void> {
  const port = parentPort!;
  if (options.dataDir) await ensureDatabaseFiles(options.dataDir);
  const { PGlite } = await import("@electric-sql/pglite");
  const pglite = new PGlite({
    dataDir: options.dataDir,
    loadDataDir: options.loadDataDir && new Blob([options.loadDataDir]),
    postgresqlconf: SETTINGS,
    parsers: { [INT8]: (v: string) => Number(v), [DATE]: (v: string) => v, [NUMERIC]: (v: string) => v },
  });
  await pglite.waitReady;
  const statements = new PGliteStatements(pglite);
  // Named statements' texts, sent once (PGliteRequest).
  const texts = new Map<string, string>();
  // Statements one after another: PGlite is one session, and the API side sends one at a time anyway.
  let chain: Promise<void> = Promise.resolve();
  port.on("message", (request: PGliteRequest) => {
    chain = chain.then(async () => {
      if (request.close) {
        await pglite.close();
        port.postMessage({ id: request.id, rows: [] } satisfies PGliteResponse);
        return;
      }
      try {
        if (request.name !== undefined && request.sql !== undefined) texts.set(request.name, request.sql);
        const sql = request.sql ?? (request.name === undefined ? undefined : texts.get(request.name));
        if (sql === undefined) throw new Error(`no statement named ${request.name}`);
        if (request.begin) await statements.run(request.begin, []);
        const result = await statements.run(sql, request.parameters);
        const transfer = textColumnsAsBytes(result.rows);
        port.postMessage({ id: request.id, rows: result.rows, affectedRows: result.affectedRows }, transfer);
      } catch (error) {
        port.postMessage({ id: request.id, error: errorOf(error) } satisfies PGliteResponse);
      }
    });
  });
  port.postMessage({ ready: true });
}

if (parentPort && workerData) {
  serve(workerData as PGliteThreadOptions).catch((error) => {
    parentPort!.postMessage({ failed: error instanceof Error ? error.message : String(error) });
  });
}
