import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { promisify } from "node:util";

/**
 * The boundary checks `npm run lint` runs (dependency-cruiser's rules and the table-ownership
 * scan) are run on small trees made here: each passes a tree that keeps the rules and fails, naming
 * the crossing, once one bad import or one write to another module's table is added. So is the
 * V8-patterns check (scripts/check-v8-patterns.mjs): the safe forms pass, each pattern is refused.
 */

const repo = path.resolve(import.meta.dirname, "../..");
const run = promisify(execFile);
const trees: string[] = [];
after(() => {
  for (const tree of trees) rmSync(tree, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), "stockroom-boundaries-"));
  trees.push(dir);
  for (const [file, text] of Object.entries(files)) write(dir, file, text);
  return dir;
}

function write(dir: string, file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

async function exitOf(
  command: string,
  args: string[],
  cwd: string,
): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

const modules = {
  "src/domain/alpha/index.ts": 'export { alphaName } from "./names.ts";\n',
  "src/domain/alpha/names.ts": 'export const alphaName = "alpha";\n',
  "src/domain/beta/index.ts":
    'import { alphaName } from "../alpha/index.ts";\nexport const betaName = "beta of " + alphaName;\n',
};

test("dependency-cruiser refuses a domain module reaching past another's index.ts", async () => {
  const dir = tree(modules);
  copyFileSync(path.join(repo, ".dependency-cruiser.cjs"), path.join(dir, ".dependency-cruiser.cjs"));
  copyFileSync(path.join(repo, "tsconfig.json"), path.join(dir, "tsconfig.json"));
  const depcruise = path.join(repo, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");
  const args = [depcruise, "src", "--config", ".dependency-cruiser.cjs"];

  const clean = await exitOf(process.execPath, args, dir);
  assert.equal(clean.code, 0, clean.output);

  write(
    dir,
    "src/domain/beta/reach.ts",
    'import { alphaName } from "../alpha/names.ts";\nexport { alphaName };\n',
  );
  const crossed = await exitOf(process.execPath, args, dir);
  assert.equal(crossed.code, 1, crossed.output);
  assert.match(
    crossed.output,
    /error domain-module-public-entry: src\/domain\/beta\/reach\.ts → src\/domain\/alpha\/names\.ts/,
  );
});

test("the table-ownership check refuses a write to another module's table", async () => {
  const dir = tree({
    "src/domain/suppliers/repository.ts":
      'export const archive = (trx) => trx.updateTable("suppliers").set({ archived: true }).execute();\n',
    "src/domain/receipts/repository.ts":
      'export const read = (trx) => trx.selectFrom("purchase_orders").selectAll().execute();\n',
  });
  const args = [path.join(repo, "scripts/check-table-owners.mjs"), dir];

  const clean = await exitOf(process.execPath, args, repo);
  assert.equal(clean.code, 0, clean.output);

  write(
    dir,
    "src/domain/receipts/close.ts",
    'export const close = (trx) =>\n  trx.updateTable("purchase_orders").set({ status: "closed" }).execute();\n',
  );
  write(dir, "src/domain/suppliers/cleanup.ts", "export const q = sql`delete from jobs where id = 1`;\n");
  const crossed = await exitOf(process.execPath, args, repo);
  assert.equal(crossed.code, 1, crossed.output);
  assert.match(
    crossed.output,
    /src\/domain\/receipts\/close\.ts:2 updateTable "purchase_orders": owned by src\/domain\/purchase-orders\//,
  );
  assert.match(
    crossed.output,
    /src\/domain\/suppliers\/cleanup\.ts:1 raw SQL write to "jobs": owned by src\/jobs\//,
  );
  assert.match(crossed.output, /Table ownership: 2 write\(s\) outside the owning module/);

  write(dir, "src/domain/receipts/close.ts", "export const close = () => null;\n");
  write(
    dir,
    "src/domain/suppliers/cleanup.ts",
    "export const q = sql`select id from jobs where type = 'x'`;\n",
  );
  const jobsRead = await exitOf(process.execPath, args, repo);
  assert.equal(jobsRead.code, 1, jobsRead.output);
  assert.match(
    jobsRead.output,
    /src\/domain\/suppliers\/cleanup\.ts:1 raw SQL read of "jobs": owned by src\/jobs\//,
  );

  write(dir, "src/domain/suppliers/cleanup.ts", "export const q = null;\n");
  write(
    dir,
    "src/db/tables/extra.ts",
    "export interface ExtraTables {\n  supplier_notes: SupplierNotesTable;\n}\n",
  );
  const unowned = await exitOf(process.execPath, args, repo);
  assert.equal(unowned.code, 1, unowned.output);
  assert.match(unowned.output, /src\/db\/tables\/extra\.ts: table "supplier_notes" has no owner in OWNERS/);
});

/** The place scripts/check-v8-patterns.mjs allows (once per connection), as the checker's tree needs it. */
const allowedPlace = `export function sendHotQueriesPrepared(client: { query: unknown }): void {
  client.query = (...args: unknown[]) => args;
}
`;

test("the V8-patterns check refuses each pattern in code run per request and passes the safe forms", async () => {
  const dir = tree({
    "src/db/database.ts": allowedPlace,
    "src/http/safe.ts": `// Module level runs once: none of this is checked.
const starters: Record<string, () => void> = {};
starters.first = () => {};
function* lines() {
  yield 1;
}
class Piece {
  constructor(readonly done: () => void) {}
}
export function handle(request: { onDone?: () => void }, send: (body: unknown) => void): number[] {
  const onDone = () => send("done");
  request.onDone = onDone;
  const piece = new Piece(() => send("piece"));
  send({ next: () => piece });
  request.onDone = request.onDone ? () => send("a") : () => send("b");
  return [...lines()];
}
`,
    "src/cli/progress.ts": `export function bar() {
  class Bar {}
  return new Bar();
}
`,
  });
  const args = [path.join(repo, "scripts/check-v8-patterns.mjs"), dir];

  const clean = await exitOf(process.execPath, args, repo);
  assert.equal(clean.code, 0, clean.output);
  assert.equal(clean.output, "V8 patterns: none in code run per request (allowed, as run once: 1).\n");

  write(
    dir,
    "src/db/copy.ts",
    "export function copyOut(copy: { callback?: unknown }) {\n  copy.callback = (error: Error, data: Buffer) => data;\n}\n",
  );
  write(
    dir,
    "src/http/taker.ts",
    "export class Taker {\n  f?: () => number;\n  take() {\n    this.f = function () {\n      return 1;\n    };\n  }\n}\n",
  );
  write(
    dir,
    "src/domain/keyed.ts",
    "export const keep = (target: object, key: string) => {\n  (target as Record<string, unknown>)[key] ??= (async () => key) as unknown;\n};\n",
  );
  write(
    dir,
    "src/http/page.ts",
    "export function page() {\n  async function* chunks() {\n    yield 1;\n  }\n  return chunks();\n}\n",
  );
  write(
    dir,
    "src/db/rows.ts",
    "export function make() {\n  class Row {}\n  function Box() {}\n  return [new Row(), new Box()];\n}\n",
  );
  write(
    dir,
    "src/domain/old-style.ts",
    "export function make() {\n  function Row(this: { a: number }) {\n    this.a = 1;\n  }\n  return Row;\n}\n",
  );
  write(
    dir,
    "src/db/database.ts",
    `${allowedPlace}export function other(client: { end: unknown }) {\n  client.end = () => 0;\n}\n`,
  );
  const refused = await exitOf(process.execPath, args, repo);
  assert.equal(refused.code, 1, refused.output);
  const lines = refused.output.split("\n");
  assert.equal(lines[0], "V8 patterns: 8 in code run per request:");
  assert.deepEqual(lines.slice(1, 9).sort(), [
    "  src/db/copy.ts:2 in copyOut: function literal assigned to a property (make it in a const first)",
    "  src/db/database.ts:5 in other: function literal assigned to a property (make it in a const first)",
    "  src/db/rows.ts:2 in make: class declared inside a function (declare it at module level)",
    "  src/db/rows.ts:3 in make: constructor function (uses `this` or is called with `new`) declared inside a function (declare it at module level)",
    "  src/domain/keyed.ts:2 in keep: function literal assigned to a property (make it in a const first)",
    "  src/domain/old-style.ts:2 in make: constructor function (uses `this` or is called with `new`) declared inside a function (declare it at module level)",
    "  src/http/page.ts:2 in page: generator function declared inside a function (declare it at module level)",
    "  src/http/taker.ts:4 in Taker.take: function literal assigned to a property (make it in a const first)",
  ]);

  // An allowed place that is no longer there is reported, so the list cannot outlive its code.
  for (const file of ["copy", "rows", "database"]) rmSync(path.join(dir, `src/db/${file}.ts`));
  for (const file of ["keyed", "old-style"]) rmSync(path.join(dir, `src/domain/${file}.ts`));
  for (const file of ["taker", "page"]) rmSync(path.join(dir, `src/http/${file}.ts`));
  const stale = await exitOf(process.execPath, args, repo);
  assert.equal(stale.code, 1, stale.output);
  assert.match(
    stale.output,
    /^V8 patterns: 1 in code run per request:\n {2}ALLOWED entry matches nothing: src\/db\/database\.ts in sendHotQueriesPrepared \(property-function\)\n/,
  );
});
