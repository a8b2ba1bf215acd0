import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { pruneUnusedTemplates, TEMPLATE_UNUSED_MS } from "../helpers/embedded-template.ts";

describe("test database templates unused for a week are pruned", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "template-prune-"));
  after(() => rmSync(folder, { recursive: true, force: true }));
  const now = Date.now();
  const old = new Date(now - TEMPLATE_UNUSED_MS - 60_000);
  const recent = new Date(now - TEMPLATE_UNUSED_MS + 60_000);
  const file = (name: string, at: Date) => {
    writeFileSync(path.join(folder, name), "x");
    utimesSync(path.join(folder, name), at, at);
  };
  const dir = (name: string) => mkdirSync(path.join(folder, name, "base"), { recursive: true });

  it("deletes old templates with their files and old partial copies, and keeps the rest", () => {
    file("migrated-aaaa.tar", old);
    dir("migrated-aaaa.files");
    file("migrated-bbbb.tar", recent);
    dir("migrated-bbbb.files");
    file("migrated-cccc.tar", old); // the one in use: never deleted, however old
    dir("migrated-cccc.files");
    file("migrated-dddd.tar.123.partial", old);
    file("migrated-eeee.tar.456.partial", recent);
    dir("migrated-ffff.files"); // its tar is gone
    file("notes.txt", old); // not ours

    const deleted = pruneUnusedTemplates(folder, path.join(folder, "migrated-cccc.tar"), now);

    assert.deepEqual(deleted.sort(), [
      "migrated-aaaa.files",
      "migrated-aaaa.tar",
      "migrated-dddd.tar.123.partial",
      "migrated-ffff.files",
    ]);
    assert.deepEqual(readdirSync(folder).sort(), [
      "migrated-bbbb.files",
      "migrated-bbbb.tar",
      "migrated-cccc.files",
      "migrated-cccc.tar",
      "migrated-eeee.tar.456.partial",
      "notes.txt",
    ]);
  });

  it("answers nothing for a folder that does not exist", () => {
    assert.deepEqual(pruneUnusedTemplates(path.join(folder, "missing"), "migrated-x.tar", now), []);
  });
});
