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
  const { PGlite } = await import("@electric-sql/pglite");
  const probe = new PGlite();
  const version = (await probe.query<{ v: string }>("select version() as v")).rows[0].v;
  await probe.close();
  const pkg = JSON.parse(
    readFileSync(new URL("../../node_modules/@electric-sql/pglite/package.json", import.meta.url), "utf8"),
  ) as { version: string };
  return {
    kind,
    databaseUrl: "",
    dataDir,
    ceilingDir,
    version: `PGlite ${pkg.version} (${version.split(" on ")[0]})`,
    async drop() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
