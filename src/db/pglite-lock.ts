import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * One process at a time on an embedded database's files. PGlite keeps PostgreSQL's state in its own
 * memory and writes the files as if it were alone: a second process on the same directory (`npm run
 * worker` beside `npm start`, or a second `npm start`) writes over the first one's pages and WAL and
 * corrupts the database. So the process that opens it writes a lock file beside it with its pid, and
 * another process finding the file refuses to start while that pid is alive. A lock whose process is
 * gone (killed, the machine restarted) is stale: it is taken over.
 *
 * The check is by pid on this machine only (a data directory on a network share seen by two machines
 * is not protected). Two processes taking over the same stale lock at the same instant could both
 * pass; starting two at once on a crashed directory is not a case this guards.
 */

export class DataDirectoryInUse extends Error {
  constructor(
    readonly lockFile: string,
    readonly ownerPid: number,
  ) {
    super(
      `The embedded database in ${path.dirname(lockFile)} is in use by process ${ownerPid} (lock file ${lockFile}). ` +
        "Only one process may open it: stop that process first. To run the worker apart from the API, " +
        "use PostgreSQL (DATABASE_URL). If no such process is running, delete the lock file.",
    );
    this.name = "DataDirectoryInUse";
  }
}

interface LockContent {
  pid: number;
  host: string;
  started: string;
}

/** Lock files this process holds: opening the same directory twice in one process is refused too. */
const held = new Set<string>();

export interface DataDirectoryLock {
  file: string;
  release(): void;
}

/** Takes the lock of the embedded database under `dir` (the service's DATA_DIR), or throws DataDirectoryInUse. */
export function lockDataDirectory(dir: string): DataDirectoryLock {
  const file = path.join(dir, "pglite.lock");
  if (held.has(file)) throw new DataDirectoryInUse(file, process.pid);
  const content: LockContent = { pid: process.pid, host: os.hostname(), started: new Date().toISOString() };
  if (!create(file, content)) {
    const owner = readOwner(file);
    if (owner !== null && isAlive(owner)) throw new DataDirectoryInUse(file, owner);
    // Stale (its process is gone) or unreadable (a crash while it was being written): taken over.
    fs.rmSync(file, { force: true });
    if (!create(file, content)) throw new DataDirectoryInUse(file, readOwner(file) ?? 0);
  }
  held.add(file);
  // A process ending without closing the database (process.exit on a fatal error) still lets go.
  const onExit = () => removeIfOurs(file);
  process.once("exit", onExit);
  return {
    file,
    release() {
      if (!held.delete(file)) return;
      process.off("exit", onExit);
      removeIfOurs(file);
    },
  };
}

/** Creates the lock file only if there is none (O_EXCL): false when another one is there. */
function create(file: string, content: LockContent): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    fs.writeSync(fd, `${JSON.stringify(content)}\n`);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

function readOwner(file: string): number | null {
  try {
    const pid = (JSON.parse(fs.readFileSync(file, "utf8")) as Partial<LockContent>).pid;
    return Number.isInteger(pid) && (pid as number) > 0 ? (pid as number) : null;
  } catch {
    return null;
  }
}

/**
 * Whether a process with this pid runs. Our own pid in a lock this process does not hold is a lock
 * left by an earlier process that had the same pid (a container restarted: pids start over).
 */
function isAlive(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function removeIfOurs(file: string): void {
  if (readOwner(file) === process.pid) fs.rmSync(file, { force: true });
}
