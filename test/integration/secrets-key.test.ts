/**
 * The key that seals stored secrets lives outside the database (issue 18 item 3): the key file under
 * DATA_DIR (mode 0600) or SECRETS_KEY; a database without its key opens nothing and the service refuses
 * to start on it; rotation with SECRETS_KEY_PREVIOUS; migration of rows sealed with the old in-database
 * key. Each start is a real runtime over the same storage (an on-disk PGlite directory, or one
 * PostgreSQL schema when TEST_DATABASE_URL is set), and deliveries go to a real HTTPS receiver.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { createCipheriv, createHash, createHmac, hkdfSync, randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { ManualClock } from "../../src/clock.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { foundationModule } from "../../src/modules/foundation.ts";
import { createWebhooksModule } from "../../src/modules/webhooks.ts";
import { createRuntime, type Runtime } from "../../src/runtime.ts";
import { SecretsRefusal } from "../../src/secrets/index.ts";
import { ADMIN_TOKEN } from "../helpers/app.ts";
import { copyMigratedDatabase } from "../helpers/embedded-template.ts";
import { makePki, type Pki } from "../helpers/pki.ts";

const databaseUrl = process.env.TEST_DATABASE_URL ?? "";
const keyA = randomBytes(32).toString("base64");
const keyB = randomBytes(32).toString("hex");
const clock = new ManualClock("2030-03-01T00:00:00.000Z");

interface Received {
  path: string;
  timestamp: string;
  signature: string;
  raw: Buffer;
}

let pki: Pki;
let server: Server;
let port = 0;
const received: Received[] = [];
const cleanups: Array<() => Promise<void> | void> = [];

before(async () => {
  pki = makePki({ subjectAltNames: ["DNS:hooks.test", "IP:127.0.0.1"] });
  server = createServer({ key: pki.key, cert: pki.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({
        path: req.url ?? "",
        timestamp: String(req.headers["x-service-timestamp"]),
        signature: String(req.headers["x-service-signature"]),
        raw: Buffer.concat(chunks),
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  pki.dispose();
});

/**
 * A place for one installation: its DATA_DIR and, on PostgreSQL, its schema. On PGlite its database
 * files are a copy of the migrated template (initdb is server-start's subject, not this file's: ~4 s
 * of CPU each), unless `empty` (a restore copies files in).
 */
async function installation(empty = false): Promise<{ dataDir: string; schema?: string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "stockroom-secrets-"));
  if (!databaseUrl && !empty) await copyMigratedDatabase(path.join(dataDir, "pglite"));
  const schema = databaseUrl ? `secrets_${process.pid}_${randomBytes(3).toString("hex")}` : undefined;
  cleanups.push(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    if (schema) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    }
  });
  return { dataDir, schema };
}

function start(
  place: { dataDir: string; schema?: string },
  env: Record<string, string> = {},
): Promise<Runtime> {
  const config = loadConfig({
    DATA_DIR: place.dataDir,
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN,
    BOOTSTRAP: "none",
    WORKERS: "off",
    LOG_LEVEL: "silent",
    WEBHOOK_ALLOW_PRIVATE: "true",
    ...env,
  });
  const webhooks = createWebhooksModule({
    ca: pki.ca,
    resolve: async (host) => (host === "hooks.test" ? ["127.0.0.1"] : []),
  });
  return createRuntime(config, { clock, schema: place.schema, modules: [foundationModule, webhooks] });
}

async function call(rt: Runtime, method: string, url: string, auth: string, body?: unknown, headers = {}) {
  const res = await rt.app.inject({
    method: method as "POST",
    url,
    headers: { authorization: `Bearer ${auth}`, ...headers },
    ...(body === undefined ? {} : { payload: body as object }),
  });
  return { status: res.statusCode, body: res.body === "" ? null : res.json() };
}

/** A store, a key and one webhook to the receiver; `idempotencyKey` makes the creation replayable. */
async function storeWithWebhook(rt: Runtime, hookPath: string, idempotencyKey: string) {
  const store = await call(rt, "POST", "/admin/stores", ADMIN_TOKEN, {
    name: "Secrets",
    currency: "USD",
    timezone: "UTC",
    owner_email: "owner@example.com",
    seed: "empty",
  });
  assert.equal(store.status, 201, JSON.stringify(store.body));
  const key = await call(rt, "POST", `/admin/stores/${store.body.data.id}/keys`, ADMIN_TOKEN, {
    name: "all",
    scopes: ["read", "webhooks"],
  });
  assert.equal(key.status, 201);
  const created = await call(
    rt,
    "POST",
    "/v2/webhooks",
    key.body.data.key,
    { url: `https://hooks.test:${port}${hookPath}`, events: ["*"] },
    { "idempotency-key": idempotencyKey },
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return {
    storeId: store.body.data.id as number,
    apiKey: key.body.data.key as string,
    webhookId: created.body.data.id as number,
    secret: created.body.data.secret as string,
    created: created.body,
  };
}

/** Sends webhook.test and checks the receiver got it signed with `secret` (computed here, not by the service). */
async function assertSignsWith(
  rt: Runtime,
  hook: { apiKey: string; webhookId: number },
  hookPath: string,
  secret: string,
) {
  const before = received.filter((r) => r.path === hookPath).length;
  const sent = await call(rt, "POST", `/v2/webhooks/${hook.webhookId}/test`, hook.apiKey);
  assert.equal(sent.status, 202, JSON.stringify(sent.body));
  await rt.worker.drain();
  const got = received.filter((r) => r.path === hookPath);
  assert.equal(got.length, before + 1);
  const last = got[got.length - 1];
  const expected = createHmac("sha256", secret).update(`${last.timestamp}.`).update(last.raw).digest("hex");
  assert.equal(last.signature, `sha256=${expected}`);
}

async function sealedValues(rt: Runtime) {
  const webhooks = await rt.ctx.db
    .selectFrom("webhooks")
    .select(["id", "store_id", "secret_encrypted"])
    .execute();
  const responses = await rt.ctx.db
    .selectFrom("idempotency_keys")
    .select(["store_id", "api_key_id", "key", "response_body"])
    .where("response_body", "is not", null)
    .execute();
  return { webhooks, responses };
}

describe("the secrets key", () => {
  test("without SECRETS_KEY a 0600 key file under DATA_DIR seals, and the database alone opens nothing", async (t) => {
    const place = await installation();
    let rt = await start(place);
    const hook = await storeWithWebhook(rt, "/file", "k-file");
    const keyFile = path.join(place.dataDir, "secrets.key");
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    assert.match(readFileSync(keyFile, "utf8"), /^[A-Za-z0-9+/]{43}=\n$/);
    const settings = await rt.ctx.db.selectFrom("service_settings").select("key").execute();
    assert.ok(!settings.some((s) => s.key === "secrets_key"), "no sealing key in the database");
    const sealed = await sealedValues(rt);
    assert.equal(sealed.webhooks.length, 1);
    assert.ok(!sealed.webhooks[0].secret_encrypted.includes(hook.secret.slice(6)));
    assert.equal(sealed.responses.length, 1);
    assert.ok(!sealed.responses[0].response_body!.includes(hook.secret.slice(6)));
    await assertSignsWith(rt, hook, "/file", hook.secret);
    await rt.close();

    // The same key file: the next start opens everything.
    rt = await start(place);
    await assertSignsWith(rt, hook, "/file", hook.secret);
    await rt.close();

    if (databaseUrl) return t.diagnostic("a backup of the embedded database files: PGlite only");
    // A backup of the database files alone, restored elsewhere: a new key file is made, opens nothing,
    // and the start is refused rather than running with secrets it cannot read.
    const restored = await installation(true);
    cpSync(path.join(place.dataDir, "pglite"), path.join(restored.dataDir, "pglite"), { recursive: true });
    await assert.rejects(start(restored), (error: unknown) => {
      assert.ok(error instanceof SecretsRefusal);
      assert.match(
        error.message,
        /^Refusing to start: 1 webhook signing secrets sealed with key [0-9a-f]{12}; 1 stored idempotent responses sealed with key [0-9a-f]{12}\./,
      );
      return true;
    });
  });

  test("rotation: with SECRETS_KEY=B and SECRETS_KEY_PREVIOUS=A old secrets sign, and end sealed with B", async () => {
    const place = await installation();
    let rt = await start(place, { SECRETS_KEY: keyA });
    const hook = await storeWithWebhook(rt, "/rotate", "k-rotate");
    const idA = rt.ctx.sealer.current.id;
    assert.ok((await sealedValues(rt)).webhooks.every((w) => w.secret_encrypted.startsWith(`k1.${idA}.`)));
    // A stored answer long enough to be deflated under its seal (4,096 UTF-16 units: the longest URL
    // and description, the latter in characters of two units each), then the URL put back.
    const longUrl = `https://hooks.test:${port}/rotate?${"q".repeat(2000)}`;
    const longChange = { url: longUrl, description: "📦".repeat(1000) };
    const long = await call(rt, "PATCH", `/v2/webhooks/${hook.webhookId}`, hook.apiKey, longChange, {
      "idempotency-key": "k-long",
    });
    assert.equal(long.status, 200, JSON.stringify(long.body));
    const url = `https://hooks.test:${port}/rotate`;
    assert.equal(
      (await call(rt, "PATCH", `/v2/webhooks/${hook.webhookId}`, hook.apiKey, { url })).status,
      200,
    );
    const longSealed = () =>
      sealedValues(rt).then((v) => v.responses.find((r) => r.key === "k-long")!.response_body!);
    const answerLength = JSON.stringify(long.body).length;
    assert.ok((await longSealed()).length < answerLength / 4, "deflated when first sealed");
    await rt.close();

    rt = await start(place, { SECRETS_KEY: keyB, SECRETS_KEY_PREVIOUS: keyA });
    const idB = rt.ctx.sealer.current.id;
    assert.notEqual(idA, idB);
    const sealed = await sealedValues(rt);
    assert.equal(sealed.webhooks.length, 1);
    assert.ok(
      sealed.webhooks.every((w) => w.secret_encrypted.startsWith(`k1.${idB}.`)),
      "re-sealed with B",
    );
    assert.equal(sealed.responses.length, 2);
    assert.ok(
      sealed.responses.every((r) => r.response_body!.startsWith(`k1.${idB}.`)),
      "re-sealed with B",
    );
    // Re-sealed as it was first sealed: deflated (sealed as it is, it would be a third longer than the answer).
    assert.ok((await longSealed()).length < answerLength / 4, "still deflated once re-sealed");
    await assertSignsWith(rt, hook, "/rotate", hook.secret);
    // The stored response still replays, opened with B.
    const replay = await call(
      rt,
      "POST",
      "/v2/webhooks",
      hook.apiKey,
      { url: `https://hooks.test:${port}/rotate`, events: ["*"] },
      { "idempotency-key": "k-rotate" },
    );
    assert.deepEqual(replay, { status: 201, body: hook.created });
    const longReplay = await call(rt, "PATCH", `/v2/webhooks/${hook.webhookId}`, hook.apiKey, longChange, {
      "idempotency-key": "k-long",
    });
    assert.deepEqual(longReplay, long);
    await rt.close();

    // B alone now suffices: nothing is left under A.
    rt = await start(place, { SECRETS_KEY: keyB });
    await assertSignsWith(rt, hook, "/rotate", hook.secret);
    await rt.close();
  });

  test("migration: rows sealed with the old in-database key are re-sealed and the key row deleted", async () => {
    const place = await installation();
    let rt = await start(place, { SECRETS_KEY: keyA });
    const hook = await storeWithWebhook(rt, "/migrate", "k-migrate");
    // Put the database back as the previous version left it: the key in service_settings, rows sealed
    // with keys derived from it (the old formats, written here with node:crypto).
    const oldKey = randomBytes(32).toString("hex");
    const { responses } = await sealedValues(rt);
    const responseText = rt.ctx.sealer.open(responses[0].response_body!, "idempotency");
    await rt.ctx.db.insertInto("service_settings").values({ key: "secrets_key", value: oldKey }).execute();
    await rt.ctx.db
      .updateTable("webhooks")
      .set({ secret_encrypted: oldSeal("v1", webhookKeyOf(oldKey), hook.secret, `webhook:${hook.storeId}`) })
      .where("id", "=", hook.webhookId)
      .execute();
    await rt.ctx.db
      .updateTable("idempotency_keys")
      .set({
        response_body: oldSeal(
          "s1",
          createHash("sha256").update(`idempotency:${oldKey}`).digest(),
          responseText,
          "",
        ),
      })
      .where("key", "=", "k-migrate")
      .execute();
    await rt.close();

    rt = await start(place, { SECRETS_KEY: keyA });
    const settings = await rt.ctx.db.selectFrom("service_settings").select("key").execute();
    assert.ok(!settings.some((s) => s.key === "secrets_key"), "the in-database key is deleted");
    const sealed = await sealedValues(rt);
    const current = `k1.${rt.ctx.sealer.current.id}.`;
    assert.ok(sealed.webhooks[0].secret_encrypted.startsWith(current));
    assert.ok(sealed.responses[0].response_body!.startsWith(current));
    await assertSignsWith(rt, hook, "/migrate", hook.secret);
    const replay = await call(
      rt,
      "POST",
      "/v2/webhooks",
      hook.apiKey,
      { url: `https://hooks.test:${port}/migrate`, events: ["*"] },
      { "idempotency-key": "k-migrate" },
    );
    assert.deepEqual(replay, { status: 201, body: hook.created });
    await rt.close();
  });

  test("a start with a key that opens no sealed row exits non-zero and says why", async () => {
    const place = await installation();
    const rt = await start(place, { SECRETS_KEY: keyA });
    await storeWithWebhook(rt, "/refuse", "k-refuse");
    const idA = rt.ctx.sealer.current.id;
    await rt.close();
    if (place.schema) return; // the spawned service cannot be pointed at a test schema

    // The compiled service, as `npm start` runs it (the refusal is the service's, whichever way it is
    // loaded): loading its sources through tsx cost more CPU than a build and the bundle together.
    execFileSync(process.execPath, ["scripts/build.mjs"]);
    const child = spawn(process.execPath, ["dist/server.mjs"], {
      env: {
        PATH: process.env.PATH,
        DATA_DIR: place.dataDir,
        ADMIN_TOKEN,
        BOOTSTRAP: "none",
        PORT: "0",
        LOG_LEVEL: "silent",
        SECRETS_KEY: keyB,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    assert.equal(code, 2);
    assert.match(
      stderr,
      new RegExp(
        `^Refusing to start: 1 webhook signing secrets sealed with key ${idA}; 1 stored idempotent responses sealed with key ${idA}\\. Set SECRETS_KEY`,
      ),
    );
    assert.doesNotMatch(stderr, /^\s+at .*:\d+/m, "a message, not a stack trace");
  });

  test("a shared database with an in-memory key and no SECRETS_KEY is warned about at start", async (t) => {
    if (!databaseUrl) return t.diagnostic("needs DATABASE_URL: PostgreSQL only");
    const place = await installation();
    const lines: string[] = [];
    const config = loadConfig({
      DATA_DIR: ":memory:",
      DATABASE_URL: databaseUrl,
      ADMIN_TOKEN,
      BOOTSTRAP: "none",
    });
    const rt = await createRuntime(config, {
      schema: place.schema,
      modules: [foundationModule],
      logger: { level: "warn", stream: { write: (line: string) => lines.push(line) } },
    });
    await rt.close();
    assert.equal(lines.length, 1);
    assert.match(JSON.parse(lines[0]).msg, /^SECRETS_KEY is not set and DATA_DIR is :memory:/);
  });

  test("a malformed SECRETS_KEY stops the start naming the variable", () => {
    assert.throws(
      () => loadConfig({ SECRETS_KEY: "not-a-key" }),
      (e: unknown) => e instanceof ConfigError && /^SECRETS_KEY must be 32 random bytes/.test(e.message),
    );
    assert.throws(
      () => loadConfig({ SECRETS_KEY_PREVIOUS: randomBytes(16).toString("hex") }),
      (e: unknown) =>
        e instanceof ConfigError && /^SECRETS_KEY_PREVIOUS must be 32 random bytes/.test(e.message),
    );
  });
});

function webhookKeyOf(oldKey: string): Buffer {
  return Buffer.from(hkdfSync("sha256", oldKey, Buffer.alloc(0), "stockroom webhook signing secret v1", 32));
}

function oldSeal(format: string, key: Buffer, text: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
  return [format, iv, cipher.getAuthTag(), body]
    .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
    .join(".");
}
