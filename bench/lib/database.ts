import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";

export type DbKind = "postgres" | "pglite";

export const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/test";

/** Where one run of the service keeps its data: a fresh PostgreSQL database, or a fresh PGlite directory. */
export interface BenchDatabase {
  kind: DbKind;
  /** DATABASE_URL for the service ("" for PGlite). */
  databaseUrl: string;
  /** DATA_DIR for the service. */
  dataDir: string;
  /** A directory for the ceiling's own PGlite. */
  ceilingDir: string;
  version: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function adminQuery(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function createBenchDatabase(kind: DbKind, serverUrl: string): Promise<BenchDatabase> {
  const stamp = `${new Date().toISOString().replace(/\D/g, "").slice(0, 14)}_${process.pid}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), `stockroom-bench-${kind}-`));
  const ceilingDir = path.join(dataDir, "ceiling");
  if (kind === "postgres") {
    const name = `bench_${stamp}`;
    await adminQuery(serverUrl, `create database ${name}`);
    const version = (await adminQuery(serverUrl, "select version() as v")).rows[0].v as string;
    return {
      kind,
      databaseUrl: withDatabase(serverUrl, name),
      dataDir,
      ceilingDir,
      version,
      async drop() {
        await adminQuery(serverUrl, `drop database if exists ${name} with (force)`).catch((error) =>
          console.error(`could not drop database ${name}: ${error}`),
        );
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  return {
    kind,
    databaseUrl: "",
    dataDir,
    ceilingDir,
    // The engine's own version() is asked of the ceiling's database once it runs (pgliteVersion): a
    // PGlite opened here only to ask it ran initdb in WebAssembly, ~8 s of CPU.
    version: `PGlite ${pglitePackageVersion()}`,
    async drop() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function pglitePackageVersion(): string {
  const pkg = JSON.parse(
    readFileSync(new URL("../../node_modules/@electric-sql/pglite/package.json", import.meta.url), "utf8"),
  ) as { version: string };
  return pkg.version;
}

/** "PGlite 0.5.16 (PostgreSQL 18.6 (PGlite 0.5.16))" from the engine's `select version()`. */
export function pgliteVersion(serverVersion: string): string {
  return `PGlite ${pglitePackageVersion()} (${serverVersion.split(" on ")[0]})`;
}
