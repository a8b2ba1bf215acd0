/**
 * A migrated embedded database for tests to start from. A fresh in-memory PGlite runs initdb in
 * WebAssembly: ~3.7 s of CPU, most of what a test app's start cost (~4.1 s), paid by every test file
 * (each is a process of its own). Loading the files of an already migrated database instead takes
 * ~0.5 s. The template is made once per machine and set of migrations: its tar is kept under the
 * system's temporary directory, named by a digest of the migrations' sources and PGlite's version,
 * so a changed migration makes a new one. Each app still runs `migrateToLatest` over it (which then
 * finds nothing to do), and production's start does not use any of this.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { Kysely } from "kysely";
import { migrateToLatest } from "../../src/db/migrations/index.ts";
import { ConnectionTurns, PGliteDialect } from "../../src/db/pglite-dialect.ts";
import { PGliteStatements } from "../../src/db/pglite-statements.ts";
import type { PGliteThread } from "../../src/db/pglite-thread.ts";

const MIGRATIONS = path.resolve(import.meta.dirname, "../../src/db/migrations");
const FOLDER = path.join(tmpdir(), "stockroom-test-databases");

/**
 * How the template is made beyond the migrations, part of its digest: a template made another way
 * is not taken for this one.
 */
const RECIPE = "without template0 and template1, checkpointed";

/** Everything the template's files depend on: every migration's text, the engine's version, RECIPE. */
function templateDigest(): string {
  const hash = createHash("sha256");
  // The package's entry is dist/index.cjs; its package.json (not exported) is one folder up.
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  hash.update(JSON.parse(readFileSync(path.resolve(path.dirname(entry), "../package.json"), "utf8")).version);
  hash.update(RECIPE);
  for (const name of readdirSync(MIGRATIONS).sort()) {
    hash.update(`\0${name}\0`);
    hash.update(readFileSync(path.join(MIGRATIONS, name)));
  }
  return hash.digest("hex").slice(0, 16);
}

/**
 * Every test app loads the template's files, so what it does not need is dropped: initdb's template0
 * and template1 (nothing here creates a database on PGlite; the service runs in `postgres`), a third
 * of the files each app unpacked; and a checkpoint, so an app's start does not replay the migrations'
 * WAL (docs/developing.md, "Per-file cost, twelfth session").
 */
async function leaveOnlyTheServiceDatabase(pglite: PGlite): Promise<void> {
  // One statement each: DROP DATABASE refuses to run inside the block of a multi-statement query.
  for (const name of ["template0", "template1"]) {
    await pglite.exec(`alter database ${name} is_template false`);
    await pglite.exec(`drop database ${name}`);
  }
  await pglite.exec("checkpoint");
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
    await leaveOnlyTheServiceDatabase(pglite);
    const tar = await pglite.dumpDataDir("none");
    return new Uint8Array(await tar.arrayBuffer());
  } finally {
    await pglite.close();
  }
}

let template: Promise<Uint8Array<ArrayBuffer>> | undefined;

const templateFile = () => path.join(FOLDER, `migrated-${templateDigest()}.tar`);

/**
 * Templates unused for this long are deleted when a new one is made. Every change to a migration
 * makes a new template (a tar and its files, tens of megabytes), so a developer's machine would
 * otherwise keep one per migration edit for ever; a week keeps those of other checkouts in use.
 */
export const TEMPLATE_UNUSED_MS = 7 * 24 * 3600 * 1000;

/**
 * Deletes the templates in `folder` (tars and their files) not used since `now - TEMPLATE_UNUSED_MS`,
 * but never `keep`. A template's tar is touched each time it is used, so its time says when it was
 * last used. Returns the names deleted.
 */
export function pruneUnusedTemplates(folder: string, keep: string, now = Date.now()): string[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const deleted: string[] = [];
  for (const name of names) {
    if (!name.startsWith("migrated-") || name.startsWith(path.basename(keep, ".tar"))) continue;
    // A tar's files go with it; a crashed process's partial copy is judged by its own time.
    const tar = name.endsWith(".partial") ? name : name.replace(/\.files$/, ".tar");
    let usedAt: number;
    try {
      usedAt = statSync(path.join(folder, tar)).mtimeMs;
    } catch {
      usedAt = 0; // files left without their tar
    }
    if (now - usedAt < TEMPLATE_UNUSED_MS) continue;
    rmSync(path.join(folder, name), { recursive: true, force: true });
    deleted.push(name);
  }
  return deleted;
}

function markUsed(file: string): void {
  const now = new Date();
  try {
    utimesSync(file, now, now);
  } catch {
    // A cache on a read-only disk is still a cache; it is only never pruned.
  }
}

/** The migrated template's tar: read from the cache, else made and kept there (an atomic rename). */
export function migratedTemplate(): Promise<Uint8Array<ArrayBuffer>> {
  template ??= (async () => {
    const file = templateFile();
    try {
      const tar = new Uint8Array(readFileSync(file));
      markUsed(file);
      return tar;
    } catch {
      const made = await makeTemplate();
      mkdirSync(FOLDER, { recursive: true });
      pruneUnusedTemplates(FOLDER, file);
      const partial = `${file}.${process.pid}.partial`;
      writeFileSync(partial, made);
      renameSync(partial, file);
      return made;
    }
  })();
  return template;
}

/**
 * Fills `directory` (an embedded database's files: `DATA_DIR/pglite`) with the migrated template, for
 * tests of a service on disk whose subject is not initdb (a first start's initdb is server-start's).
 * The files are made from the tar once per machine, by PGlite in a child process (its WebAssembly
 * heap goes when it exits), and copied from there.
 */
export async function copyMigratedDatabase(directory: string): Promise<void> {
  await migratedTemplate();
  const files = templateFile().replace(/\.tar$/, ".files");
  if (!existsSync(path.join(files, "PG_VERSION"))) {
    const making = `${files}.${process.pid}.partial`;
    rmSync(making, { recursive: true, force: true });
    const pglite = import.meta.resolve("@electric-sql/pglite");
    const code = [
      `const { PGlite } = await import(${JSON.stringify(pglite)});`,
      `const { readFileSync } = await import("node:fs");`,
      `const tar = new Blob([readFileSync(${JSON.stringify(templateFile())})]);`,
      `const db = new PGlite({ dataDir: ${JSON.stringify(making)}, loadDataDir: tar });`,
      "await db.waitReady;",
      "await db.close();",
    ].join("\n");
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, ["--input-type=module", "--eval", code], (error, _out, stderr) =>
        error
          ? reject(new Error(`could not write the template's files: ${stderr || error.message}`))
          : resolve(),
      ),
    );
    try {
      renameSync(making, files);
    } catch (error) {
      // Another test process made them meanwhile: theirs are as good.
      rmSync(making, { recursive: true, force: true });
      if (!existsSync(path.join(files, "PG_VERSION"))) throw error;
    }
  }
  cpSync(files, directory, { recursive: true });
}
