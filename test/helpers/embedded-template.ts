/**
 * A migrated embedded database for tests to start from. A fresh in-memory PGlite runs initdb in
 * WebAssembly: ~3.7 s of CPU, most of what a test app's start cost (~4.1 s), paid by every test file
 * (each is a process of its own). Loading the files of an already migrated database instead takes
 * ~0.5 s. The template is made once per machine and set of migrations: its tar is kept under the
 * system's temporary directory, named by a digest of the migrations' sources and PGlite's version,
 * so a changed migration makes a new one. Each app still runs `migrateToLatest` over it (which then
 * finds nothing to do), and production's start does not use any of this.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { Kysely } from "kysely";
import { migrateToLatest } from "../../src/db/migrations/index.ts";
import { ConnectionTurns, PGliteDialect } from "../../src/db/pglite-dialect.ts";
import { PGliteStatements } from "../../src/db/pglite-statements.ts";
import type { PGliteThread } from "../../src/db/pglite-thread.ts";

const MIGRATIONS = path.resolve(import.meta.dirname, "../../src/db/migrations");
const FOLDER = path.join(tmpdir(), "stockroom-test-databases");

/** Everything the template's files depend on: every migration's text and the engine's version. */
function templateDigest(): string {
  const hash = createHash("sha256");
  // The package's entry is dist/index.cjs; its package.json (not exported) is one folder up.
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  hash.update(JSON.parse(readFileSync(path.resolve(path.dirname(entry), "../package.json"), "utf8")).version);
  for (const name of readdirSync(MIGRATIONS).sort()) {
    hash.update(`\0${name}\0`);
    hash.update(readFileSync(path.join(MIGRATIONS, name)));
  }
  return hash.digest("hex").slice(0, 16);
}

/** initdb and every migration in this thread (once per machine), then the data directory as a tar. */
async function makeTemplate(): Promise<Uint8Array<ArrayBuffer>> {
  const { PGlite } = await import("@electric-sql/pglite");
  const pglite = new PGlite();
  await pglite.waitReady;
  try {
    // The service's own statement runner and dialect, so migrations run exactly as at a real start.
    const statements = new PGliteStatements(pglite);
    const thread = { query: (text: string, values: unknown[] = []) => statements.run(text, values) };
    const db = new Kysely<unknown>({
      dialect: new PGliteDialect(thread as unknown as PGliteThread, new ConnectionTurns(), "foreground"),
    });
    await migrateToLatest(db);
    await db.destroy();
    const tar = await pglite.dumpDataDir("none");
    return new Uint8Array(await tar.arrayBuffer());
  } finally {
    await pglite.close();
  }
}

let template: Promise<Uint8Array<ArrayBuffer>> | undefined;

/** The migrated template's tar: read from the cache, else made and kept there (an atomic rename). */
export function migratedTemplate(): Promise<Uint8Array<ArrayBuffer>> {
  template ??= (async () => {
    const file = path.join(FOLDER, `migrated-${templateDigest()}.tar`);
    try {
      return new Uint8Array(readFileSync(file));
    } catch {
      const made = await makeTemplate();
      mkdirSync(FOLDER, { recursive: true });
      const partial = `${file}.${process.pid}.partial`;
      writeFileSync(partial, made);
      renameSync(partial, file);
      return made;
    }
  })();
  return template;
}
