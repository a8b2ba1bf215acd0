/**
 * The integrator's guide the docs page shows (the document's info.description, issue 21 item 5): the
 * sections an integrator needs, the whole event catalogue, and signature checks that really verify
 * what the service signs (the Node and Python examples are run).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { EVENT_CATALOGUE } from "../../src/domain/webhooks/index.ts";
import { signatureHeader } from "../../src/domain/webhooks/signing.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
let guide: string;
let dir: string;

before(async () => {
  t = await startTestApp();
  const res = await t.client().get("/v2/openapi.json");
  assert.equal(res.status, 200);
  guide = res.body.info.description;
  dir = mkdtempSync(join(tmpdir(), "stockroom-guide-"));
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

/** The code block of one language in the guide. */
function example(language: string): string {
  const match = guide.match(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``));
  assert.ok(match, `a ${language} example`);
  return match[1];
}

const SECRET = "whsec_guide_test_secret";
const BODY = JSON.stringify({ id: "evt_1", event: "supplier.created", data: { id: 1, name: "Ünïcode Ltd" } });
const NOW = 1_900_000_000;

describe("the integrator's guide", () => {
  test("has the sections an integrator follows", () => {
    // Markdown headings, outside the code blocks (a Python comment also starts with #).
    const prose = guide.replace(/```[\s\S]*?```/g, "");
    const sections = [...prose.matchAll(/^#+ (.+)$/gm)].map((m) => m[1]);
    assert.deepEqual(sections, [
      "Authentication",
      "Errors",
      "Paging",
      "Idempotency",
      "Rate limits",
      "Webhooks",
      "Event catalogue",
      "Envelope and headers",
      "Signature",
      "Receiver contract",
      "Retries, folding, the slow lane",
      "Redelivery and the log",
    ]);
  });

  test("lists every catalogue event with its body schema", () => {
    const rows = guide.split("\n").filter((line) => line.startsWith("| `"));
    assert.deepEqual(
      rows.map((row) => row.split("`")[1]),
      [...EVENT_CATALOGUE],
    );
    assert.ok(rows[0].endsWith("| `PurchaseOrderEvent` |"), rows[0]);
  });

  test("says a 2xx with a body, such as 200 ok, is a failed delivery", () => {
    assert.match(guide, /\*\*any 2xx with an empty body within 10 seconds\*\*/);
    assert.match(guide, /a 2xx that carries a body, so `200 ok` is a failure/);
  });

  test("the Node example accepts what the service signs and refuses the rest", async () => {
    const file = join(dir, "verify.mjs");
    writeFileSync(file, example("js"));
    const { verify } = (await import(pathToFileURL(file).href)) as {
      verify: (secret: string, headers: Record<string, string>, body: Buffer, now: number) => boolean;
    };
    const headers = (timestamp: number, body = BODY) => ({
      "x-service-timestamp": String(timestamp),
      "x-service-signature": signatureHeader(SECRET, timestamp, body),
    });
    assert.equal(verify(SECRET, headers(NOW), Buffer.from(BODY), NOW), true);
    assert.equal(verify(SECRET, headers(NOW), Buffer.from(`${BODY} `), NOW), false);
    assert.equal(verify("another secret", headers(NOW), Buffer.from(BODY), NOW), false);
    assert.equal(verify(SECRET, headers(NOW - 301), Buffer.from(BODY), NOW), false);
    assert.equal(verify(SECRET, headers(NOW - 300), Buffer.from(BODY), NOW), true);
  });

  test("the Python example accepts what the service signs and refuses the rest", (tt) => {
    if (spawnSync("python3", ["--version"]).status !== 0) {
      tt.skip("no python3 on this machine");
      return;
    }
    const file = join(dir, "verify.py");
    const signature = signatureHeader(SECRET, NOW, BODY);
    writeFileSync(
      file,
      `${example("python")}
import sys
body = sys.stdin.buffer.read()
ok = {"X-Service-Timestamp": "${NOW}", "X-Service-Signature": "${signature}"}
old = {"X-Service-Timestamp": "${NOW - 301}", "X-Service-Signature": "${signatureHeader(SECRET, NOW - 301, BODY)}"}
print(verify("${SECRET}", ok, body, ${NOW}), verify("${SECRET}", ok, body + b" ", ${NOW}), verify("${SECRET}", old, body, ${NOW}))
`,
    );
    const run = spawnSync("python3", [file], { input: Buffer.from(BODY) });
    assert.equal(run.status, 0, run.stderr.toString());
    assert.equal(run.stdout.toString().trim(), "True False False");
  });

  test("the bearer scheme names the key format", async () => {
    const doc = (await t.client().get("/v2/openapi.json")).body;
    assert.deepEqual(
      doc.components.securitySchemes.apiKey.bearerFormat,
      "sr2_ followed by 40 letters and digits",
    );
    const docs = await t.client().get("/docs/");
    assert.equal(docs.status, 200);
  });
});
