import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/**
 * Creates an embedded database's files in a short-lived child process. PGlite runs `initdb` inside the
 * process that opens a new data directory, and the WebAssembly heap it grows for that (about 530 MB
 * here) stays with the process for good: `npm start` on a fresh machine idled at ~900 MB against ~300
 * MB after a restart on the same files. In a child, that memory is returned when it exits.
 *
 * The files are made in a sibling directory and renamed into place, so a start interrupted halfway
 * leaves no half-made database behind (the next start makes it again).
 */
export async function ensureDatabaseFiles(dataDir: string): Promise<void> {
  if (fs.existsSync(path.join(dataDir, "PG_VERSION"))) return;
  // Half-made databases of interrupted starts go first.
  const parent = path.dirname(dataDir);
  const prefix = `${path.basename(dataDir)}.initdb-`;
  for (const name of fs.readdirSync(parent))
    if (name.startsWith(prefix)) fs.rmSync(path.join(parent, name), { recursive: true, force: true });
  const making = path.join(parent, `${prefix}${process.pid}`);
  const pglite = import.meta.resolve("@electric-sql/pglite");
  const code = [
    `const { PGlite } = await import(${JSON.stringify(pglite)});`,
    `const db = new PGlite({ dataDir: ${JSON.stringify(making)} });`,
    "await db.waitReady;",
    "await db.close();",
  ].join("\n");
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, ["--input-type=module", "--eval", code], (error, _stdout, stderr) => {
      if (error)
        reject(new Error(`could not create the embedded database: ${stderr.trim() || error.message}`));
      else resolve();
    });
  });
  // An empty directory may be there already (the service creates it); a non-empty one without
  // PG_VERSION is not ours to delete.
  if (fs.existsSync(dataDir)) fs.rmdirSync(dataDir);
  fs.renameSync(making, dataDir);
}
