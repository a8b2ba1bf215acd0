import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { promisify } from "node:util";

/**
 * The two boundary checks `npm run lint` runs (dependency-cruiser's rules and the table-ownership
 * scan) are run on small trees made here: each passes a tree that keeps the rules and fails, naming
 * the crossing, once one bad import or one write to another module's table is added.
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
