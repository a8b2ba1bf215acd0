/**
 * The `stockroom` command against a real server it started itself (`stockroom serve`, a child process on a
 * free port): every command group with `--json` output parsed and asserted, the human tables, the
 * progress bar, and the error paths (message on stderr, non-zero exit). On PostgreSQL (TEST_DATABASE_URL)
 * the server and `db migrate` each get a fresh database of their own, dropped at the end.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { freePort, startChildServer, stopChildServer } from "../helpers/child-server.ts";
import { type ShopifyStandin, startShopifyStandin } from "../shopify-standin/index.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const BIN = path.join(ROOT, "bin/stockroom.mjs");
const TOKEN = "cli-test-admin-token-0123456789abcdef";
const PG_URL = process.env.TEST_DATABASE_URL ?? "";

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

/** Environment for child processes: ours, minus anything that would point them elsewhere. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    "STOCKROOM_URL",
    "STOCKROOM_ADMIN_TOKEN",
    "STOCKROOM_STORE",
    "DATABASE_URL",
    "DATA_DIR",
    "PORT",
    // The tables fit $COLUMNS when stdout is no terminal: the tests choose it themselves.
    "COLUMNS",
  ])
    delete env[name];
  return { ...env, NO_COLOR: "1", ...extra };
}

function run(args: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: childEnv(env) });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

/** A database of its own on the test PostgreSQL server (dropped by the returned function). */
async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `cli_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/**
 * Asks `check` until it is true (waits on the server's background work), at most `attempts` times: a
 * count, not a deadline, so a busy machine gets as many tries. The waits ask the admin API over HTTP
 * rather than through the CLI, a process (~0.4 s of CPU) a try, and the CLI then runs once.
 */
async function waitFor(check: () => Promise<boolean>, attempts = 100): Promise<void> {
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 300));
  }
  assert.fail(`still waiting after ${attempts} tries`);
}

describe("stockroom CLI", () => {
  let server: ChildProcess;
  let base: string;
  let env: Record<string, string>;
  let dropDb: (() => Promise<void>) | null = null;
  let storeId: number;
  let standin: ShopifyStandin;

  const api = (key: string, urlPath: string) =>
    fetch(`${base}${urlPath}`, { headers: { authorization: `Bearer ${key}` } });
  /** The admin API's answer to `method urlPath`, for the waits (not the CLI under test). */
  const admin = async (method: string, urlPath: string, body?: unknown) => {
    const response = await fetch(`${base}${urlPath}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const cli = (...args: string[]) => run([...args], env);
  const json = async (...args: string[]) => {
    const result = await run([...args, "--json"], env);
    assert.equal(result.code, 0, `stockroom ${args.join(" ")} failed:\n${result.stderr}${result.stdout}`);
    assert.ok(result.json !== undefined, `not JSON: ${result.stdout}`);
    return result.json;
  };

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    standin = await startShopifyStandin();
    const serverEnv: Record<string, string> = {
      SHOPIFY_ADMIN_ORIGIN: standin.origin,
      PORT: String(port),
      DATA_DIR: ":memory:",
      ADMIN_TOKEN: TOKEN,
      BOOTSTRAP: "none",
      LOG_LEVEL: "warn",
      WEBHOOK_ALLOW_PRIVATE: "true",
    };
    if (PG_URL) {
      const db = await freshDatabase();
      dropDb = db.drop;
      serverEnv.DATABASE_URL = db.url;
    }
    server = (await startChildServer([BIN, "serve"], { cwd: ROOT, env: childEnv(serverEnv) })).child;
    env = { STOCKROOM_URL: base, STOCKROOM_ADMIN_TOKEN: TOKEN };
  });

  after(async () => {
    if (server) assert.equal(await stopChildServer(server), 0, "serve stops cleanly on SIGTERM");
    if (dropDb) await dropDb();
    await standin.close();
  });

  test("stores create, list, show, update", async () => {
    const created = await json(
      "stores",
      "create",
      "--name",
      "CLI Shop",
      "--currency",
      // Typed in lower case: the CLI accepts any case and the store keeps EUR.
      "eur",
      "--timezone",
      "Europe/Berlin",
      "--owner-email",
      "owner@cli.test",
      "--seed",
      "demo",
    );
    const store = created.data;
    storeId = store.id;
    assert.deepEqual(
      [store.name, store.currency, store.timezone, store.owner_email, store.api_access, store.platform],
      ["CLI Shop", "EUR", "Europe/Berlin", "owner@cli.test", true, "simulated"],
    );
    const listed = await json("stores", "list");
    assert.deepEqual(
      listed.data.map((s: any) => [s.id, s.name]),
      [[storeId, "CLI Shop"]],
    );
    const shown = await json("stores", "show", String(storeId));
    assert.deepEqual(shown.data, store);
    const updated = await json(
      "stores",
      "update",
      String(storeId),
      "--name",
      "CLI Shop Renamed",
      "--po-prefix",
      "CLI-",
      "--next-po-number",
      "40",
      "--per-key-per-minute",
      "5000",
      "--per-store-per-minute",
      "9000",
      "--writes-per-store-per-minute",
      "3000",
    );
    assert.equal(updated.data.name, "CLI Shop Renamed");
    assert.equal(updated.data.numbering.purchase_order_prefix, "CLI-");
    assert.equal(updated.data.numbering.next_purchase_order_number, 40);
    assert.deepEqual(updated.data.rate_limits, {
      per_key_per_minute: 5000,
      per_store_per_minute: 9000,
      writes_per_store_per_minute: 3000,
    });

    // People get a table.
    const table = await cli("stores", "list");
    assert.equal(table.code, 0);
    const lines = table.stdout.trimEnd().split("\n");
    assert.match(lines[0], /^ID\s+NAME\s+DOMAIN\s+CURRENCY\s+TIMEZONE\s+PLATFORM\s+API ACCESS\s+CREATED$/);
    assert.match(lines[1], /^-+\s+-+/);
    assert.match(
      lines[2],
      new RegExp(
        `^\\s*${storeId}\\s+CLI Shop Renamed\\s+\\S+\\s+EUR\\s+Europe/Berlin\\s+simulated\\s+on\\s+`,
      ),
    );
    const record = await cli("stores", "show", String(storeId));
    assert.match(record.stdout, /^rate_limits\.per_key_per_minute:\s+5000$/m);
  });

  test("keys create, list, revoke; api-access off and on; request-log with filters", async () => {
    const made = await json(
      "keys",
      "create",
      "--store",
      String(storeId),
      "--name",
      "Scripted",
      "--scopes",
      "read,webhooks,write:inventory",
    );
    assert.deepEqual(Object.keys(made.data).sort(), ["expires_at", "id", "key", "name", "prefix", "scopes"]);
    assert.match(made.data.key, /^sr2_[A-Za-z0-9]{40}$/);
    assert.deepEqual(made.data.scopes, ["read", "webhooks", "write:inventory"]);
    const secret = made.data.key as string;

    const human = await run(["keys", "create", "--name", "Shown", "--expires-at", "2099-01-01T00:00:00Z"], {
      ...env,
      STOCKROOM_STORE: String(storeId),
    });
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^expires_at:\s+2099-01-01T00:00:00.000Z$/m);
    assert.match(human.stdout, /Secret \(shown only now; store it safely\):\nsr2_[A-Za-z0-9]{40}\n$/);

    const whoami = await api(secret, "/v2/whoami");
    assert.equal(whoami.status, 200);
    assert.equal((await api(secret, "/v2/suppliers/999999")).status, 404);

    const listed = await json("keys", "list", "-s", String(storeId));
    const row = listed.data.find((k: any) => k.id === made.data.id);
    assert.equal(row.prefix, secret.slice(0, 12));
    assert.equal(row.revoked_at, null);
    assert.equal("key" in row, false);

    const off = await json("api-access", "off", "--store", String(storeId));
    assert.equal(off.data.api_access, false);
    const refused = await api(secret, "/v2/whoami");
    assert.equal(refused.status, 402);
    assert.equal(((await refused.json()) as any).error.code, "feature_not_enabled");
    const on = await cli("api-access", "on", "--store", String(storeId));
    assert.equal(on.code, 0);
    assert.equal(on.stdout, `API access for store ${storeId} (CLI Shop Renamed) is on.\n`);
    assert.equal((await api(secret, "/v2/whoami")).status, 200);

    // The refused (402) call came from a known key, so the log holds it too.
    const byKey = ["request-log", "--store", String(storeId), "--key", String(made.data.id)];
    const [log, only404, paged, all, table, narrow] = await Promise.all([
      json(...byKey),
      json(...byKey, "--status", "404"),
      json(...byKey, "--limit", "2"),
      // --since a relative time: every request of this test is within the hour.
      json(...byKey, "--limit", "1", "--all", "--since", "1h"),
      cli(...byKey, "--limit", "2"),
      run([...byKey, "--limit", "4"], { ...env, COLUMNS: "72" }),
    ]);
    assert.deepEqual(
      log.data.map((r: any) => [r.method, r.path, r.status, r.key_id]),
      [
        ["GET", "/v2/whoami", 200, made.data.id],
        ["GET", "/v2/whoami", 402, made.data.id],
        ["GET", "/v2/suppliers/999999", 404, made.data.id],
        ["GET", "/v2/whoami", 200, made.data.id],
      ],
    );
    assert.deepEqual(Object.keys(log.data[0]).sort(), [
      "created_at",
      "duration_ms",
      "id",
      "idempotency_key",
      "key_id",
      "method",
      "path",
      "request_id",
      "status",
    ]);
    assert.equal(log.has_more, false);
    assert.deepEqual(
      only404.data.map((r: any) => r.path),
      ["/v2/suppliers/999999"],
    );
    assert.equal(paged.data.length, 2);
    assert.equal(paged.has_more, true);
    const rest = await json(...byKey, "--limit", "2", "--cursor", paged.next_cursor);
    assert.deepEqual(
      rest.data.map((r: any) => [r.path, r.status]),
      [
        ["/v2/suppliers/999999", 404],
        ["/v2/whoami", 200],
      ],
    );
    assert.deepEqual(all.data, log.data);
    assert.equal(all.next_cursor, null);
    assert.equal(all.has_more, false);
    assert.equal(table.code, 0);
    assert.match(table.stdout, /^TIME\s+STATUS\s+METHOD\s+PATH\s+KEY\s+MS\s+REQUEST ID$/m);
    assert.match(table.stdout, /\s200\s+GET\s+\/v2\/whoami\s/);
    assert.match(table.stderr, /More rows: add --cursor \S+ \(or --all\)\./);
    // A terminal 72 wide: every line fits, the widest column (the time) moves last and wraps.
    assert.equal(narrow.code, 0, narrow.stderr);
    const narrowLines = narrow.stdout.trimEnd().split("\n");
    for (const line of narrowLines) assert.ok(line.length <= 72, `${line.length} wide: ${line}`);
    assert.match(narrowLines[0], /^STATUS\s+METHOD\s+PATH\s+KEY\s+MS\s+REQUEST ID\s+TIME$/);
    assert.ok(narrowLines.length > 2 + 4, "the last column wraps onto further lines");
    const lastColumn = narrowLines[0].indexOf("TIME");
    const wrapped = narrowLines
      .slice(2)
      .map((l) => l.slice(lastColumn))
      .join("");
    const times = log.data.map((r: any) => r.created_at as string);
    assert.equal(wrapped, times.join(""), "every character of the wrapped column is there, in order");

    const revoked = await json("keys", "revoke", "--store", String(storeId), String(made.data.id));
    assert.notEqual(revoked.data.revoked_at, null);
    assert.equal((await api(secret, "/v2/whoami")).status, 401);
  });

  test("errors: the envelope's code and message on stderr and a non-zero exit", async () => {
    // Independent commands, run side by side.
    const [
      missing,
      invalid,
      badToken,
      noToken,
      down,
      noStore,
      badStore,
      badScope,
      unknownCommand,
      badState,
      nothing,
    ] = await Promise.all([
      cli("stores", "show", "999999"),
      cli("stores", "create", "--name", "X", "--currency", "XXQ", "--timezone", "Mars/Base"),
      run(["stores", "list", "--token", "wrong-token-wrong-token"], { STOCKROOM_URL: base }),
      run(["stores", "list"], { STOCKROOM_URL: base }),
      freePort().then((port) =>
        run(["stores", "list", "--url", `http://127.0.0.1:${port}`], { STOCKROOM_ADMIN_TOKEN: TOKEN }),
      ),
      cli("keys", "list"),
      cli("keys", "list", "--store", "abc"),
      cli("keys", "create", "--store", String(storeId), "--name", "x", "--scopes", "read,root"),
      cli("stores", "explode"),
      cli("api-access", "maybe", "--store", String(storeId)),
      cli("stores", "update", String(storeId)),
    ]);
    assert.equal(missing.code, 1);
    assert.equal(missing.stdout, "");
    assert.equal(missing.stderr, "error: not_found (HTTP 404): No such store in this store.\n");

    assert.equal(invalid.code, 1);
    assert.equal(
      invalid.stderr,
      "error: validation_failed (HTTP 422): Some fields are invalid.\n" +
        "  - currency: is not a known ISO 4217 currency code [invalid_value]\n" +
        "  - timezone: is not a known IANA time zone [invalid_value]\n",
    );
    assert.equal((await json("stores", "list")).data.length, 1);

    assert.equal(badToken.code, 1);
    assert.equal(
      badToken.stderr,
      `error: unauthorized (HTTP 401): The admin token is wrong: the service at ${base} did not accept it (check --token / STOCKROOM_ADMIN_TOKEN).\n`,
    );
    assert.equal(noToken.code, 2);
    assert.match(noToken.stderr, /^error: No admin token: pass --token <token> or set STOCKROOM_ADMIN_TOKEN/);
    assert.equal(down.code, 1);
    assert.match(
      down.stderr,
      /^error: Cannot reach the admin API at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)\. Is the service running\?/,
    );
    assert.equal(noStore.code, 2);
    assert.equal(noStore.stderr, "error: Which store? Pass --store <id> or set STOCKROOM_STORE.\n");
    assert.equal(badStore.code, 2);
    assert.match(badStore.stderr, /--store must be a positive whole number, got "abc"/);
    assert.equal(badScope.code, 2);
    assert.match(badScope.stderr, /Unknown scope root/);
    assert.equal(unknownCommand.code, 2);
    assert.match(unknownCommand.stderr, /unknown command 'explode'/);
    assert.equal(badState.code, 2);
    assert.match(badState.stderr, /Allowed choices are on, off/);
    assert.equal(nothing.code, 2);
    assert.match(nothing.stderr, /Nothing to change/);
  });

  test("platform: products from a file and generated in bulk with a progress bar; inventory; faults", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "stockroom-cli-"));
    try {
      const file = path.join(dir, "products.json");
      writeFileSync(
        file,
        JSON.stringify({
          products: [
            {
              title: "Canvas Tote",
              vendor: "Bags Inc",
              variants: [{ title: "Natural", sku: "TOTE-NAT", price: "18.00", unit_cost: "6.5" }],
            },
            {
              title: "Enamel Mug",
              variants: [
                { title: "Red", sku: "MUG-R", price: 9 },
                { title: "Blue", sku: "MUG-B", price: 9 },
              ],
            },
          ],
        }),
      );
      const broken = path.join(dir, "broken.json");
      writeFileSync(broken, "{ nope");
      const [fromFile, bulk, bad, refused] = await Promise.all([
        json("platform", "products", "add", "--store", String(storeId), "--file", file),
        run(
          [
            "platform",
            "products",
            "add",
            "--store",
            String(storeId),
            "--generate",
            "23",
            "--variants",
            "2",
            "--batch",
            "10",
            "--json",
          ],
          env,
        ),
        cli("platform", "products", "add", "--store", String(storeId), "--file", broken),
        cli("platform", "products", "add", "--store", String(storeId), "--generate", "2", "--variants", "9"),
      ]);
      assert.deepEqual(
        fromFile.data.map((p: any) => [p.title, p.variants.map((v: any) => v.sku)]),
        [
          ["Canvas Tote", ["TOTE-NAT"]],
          ["Enamel Mug", ["MUG-R", "MUG-B"]],
        ],
      );

      assert.equal(bulk.code, 0, bulk.stderr);
      assert.equal(bulk.json.data.length, 23);
      assert.ok(bulk.json.data.every((p: any) => p.variants.length === 2));
      assert.equal(new Set(bulk.json.data.flatMap((p: any) => p.variants.map((v: any) => v.sku))).size, 46);
      // Not a terminal: one progress line per step, on stderr, ending at 100 %.
      const progress = bulk.stderr.trim().split("\n");
      assert.match(progress[0], /^products: 0\/23 \(0%\)/);
      assert.match(progress.at(-1)!, /^products: 23\/23 \(100%\) [\d.]+s$/);

      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /broken\.json is not valid JSON/);
      assert.equal(refused.code, 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    const levels = await json("platform", "inventory", "get", "--store", String(storeId));
    const level = levels.data[0];
    assert.deepEqual(Object.keys(level).sort(), [
      "available",
      "committed",
      "incoming",
      "inventory_item_id",
      "location_id",
      "on_hand",
      "unit_cost",
    ]);
    const item = String(level.inventory_item_id);
    const location = String(level.location_id);
    const set = await json(
      "platform",
      "inventory",
      "set",
      "40",
      "--store",
      String(storeId),
      "--item",
      item,
      "--location",
      location,
    );
    assert.equal(set.data[0].available, 40);
    const sold = await json(
      "platform",
      "inventory",
      "adjust",
      "-3",
      "--store",
      String(storeId),
      "--item",
      item,
      "--location",
      location,
    );
    assert.equal(sold.data[0].available, 37);
    const incoming = await json(
      "platform",
      "inventory",
      "adjust",
      "5",
      "--name",
      "incoming",
      "--store",
      String(storeId),
      "--item",
      item,
      "--location",
      location,
    );
    assert.equal(incoming.data[0].incoming, level.incoming + 5);
    const one = await json(
      "platform",
      "inventory",
      "get",
      "--store",
      String(storeId),
      "--item",
      item,
      "--location",
      location,
    );
    assert.deepEqual(
      one.data.map((l: any) => [l.available, l.incoming]),
      [[37, level.incoming + 5]],
    );

    assert.deepEqual(
      (await json("platform", "faults", "down", "--count", "2", "--store", String(storeId))).data,
      {
        mode: "down",
        remaining: 2,
      },
    );
    const ok = await cli("platform", "faults", "ok", "--store", String(storeId));
    assert.equal(ok.code, 0);
    assert.match(ok.stdout, /^MODE\s+REMAINING\n-+\s+-+\nok\s+-\n$/);
    const badMode = await cli("platform", "faults", "explode", "--store", String(storeId));
    assert.equal(badMode.code, 2);
  });

  test("alert-rules get and set; sync status and retry", async () => {
    const levels = await json("platform", "inventory", "get", "--store", String(storeId));
    const item = levels.data[0].inventory_item_id;
    const location = levels.data[0].location_id;
    const empty = await json("alert-rules", "get", "--store", String(storeId));
    assert.deepEqual(empty.data, { low_stock_threshold: null, items: [] });
    // The rules name items of the catalog mirror, which the server fills in the background: wait until
    // the API takes a rule on the item, then clear it, so the CLI's set below starts from no rules.
    const rules = `/admin/stores/${storeId}/alert_rules`;
    const probe = { inventory_item_id: item, location_id: location, reorder_point: null, max_stock: null };
    await waitFor(
      async () => (await admin("PUT", rules, { low_stock_threshold: null, items: [probe] })).status === 200,
    );
    assert.equal((await admin("PUT", rules, { low_stock_threshold: null, items: [] })).status, 200);
    const first = await json(
      "alert-rules",
      "set",
      "--store",
      String(storeId),
      "--low-stock-threshold",
      "7",
      "--item",
      `${item}@${location}=5:50`,
    );
    assert.deepEqual(first.data, {
      low_stock_threshold: 7,
      items: [{ inventory_item_id: item, location_id: location, reorder_point: 5, max_stock: 50 }],
    });
    const second = await json("alert-rules", "set", "--store", String(storeId), "--item", `${item}=:20`);
    assert.equal(second.data.low_stock_threshold, 7);
    assert.equal(second.data.items.length, 2);
    const removed = await json(
      "alert-rules",
      "set",
      "--store",
      String(storeId),
      "--remove-item",
      `${item}@${location}`,
      "--low-stock-threshold",
      "none",
    );
    assert.deepEqual(removed.data, {
      low_stock_threshold: null,
      items: [{ inventory_item_id: item, location_id: null, reorder_point: null, max_stock: 20 }],
    });
    const unknown = await cli("alert-rules", "set", "--store", String(storeId), "--item", "987654321=1:2");
    assert.equal(unknown.code, 1);
    assert.match(
      unknown.stderr,
      /^error: validation_failed \(HTTP 422\): .*\n {2}- items\.1\.inventory_item_id: no such inventory item in this store \[not_found\]\n$/,
    );
    const table = await cli("alert-rules", "get", "--store", String(storeId));
    assert.match(table.stdout, /^low_stock_threshold:\s+-$/m);
    assert.match(table.stdout, new RegExp(`^\\s*${item}\\s+all\\s+-\\s+20$`, "m"));

    const status = await json("sync", "status", "--store", String(storeId));
    assert.deepEqual(Object.keys(status.data).sort(), ["counts", "failed", "mirror", "reconciliation"]);
    assert.equal(status.data.reconciliation, null, "a simulated store needs no reconciliation");
    assert.deepEqual(Object.keys(status.data.counts).sort(), ["failed", "pending", "synced"]);
    const human = await cli("sync", "status", "--store", String(storeId));
    assert.match(human.stdout, /^counts\.pending:\s+\d+$/m);
    const retry = await cli("sync", "retry", "99999999", "--store", String(storeId));
    assert.equal(retry.code, 1);
    assert.equal(retry.stderr, "error: not_found (HTTP 404): No such platform push in this store.\n");
  });

  test("webhooks list, deliveries and redeliver", async () => {
    const key = (
      await json("keys", "create", "--store", String(storeId), "--name", "Hooks", "--scopes", "webhooks")
    ).data.key;
    const created = await fetch(`${base}/v2/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ url: "https://127.0.0.2:9/hook", events: ["*"] }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const hook = ((await created.json()) as any).data;
    const listed = await json("webhooks", "list", "--store", String(storeId));
    assert.deepEqual(
      listed.data.map((w: any) => [w.id, w.url, w.status]),
      [[hook.id, "https://127.0.0.2:9/hook", "active"]],
    );
    const tested = await fetch(`${base}/v2/webhooks/${hook.id}/test`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(tested.status, 202);
    const eventId = ((await tested.json()) as any).data.event_id;
    // The in-process worker attempts it (nothing listens on port 9 of loopback: it fails at once).
    await waitFor(
      async () =>
        (await admin("GET", `/admin/stores/${storeId}/webhooks/${hook.id}/deliveries`)).body.data.length > 0,
    );
    const deliveries = await json("deliveries", String(hook.id), "--store", String(storeId));
    assert.equal(deliveries.data.length, 1);
    assert.deepEqual(
      [deliveries.data[0].event, deliveries.data[0].event_id, deliveries.data[0].status],
      ["webhook.test", eventId, "failed"],
    );
    const redelivered = await json(
      "deliveries",
      "redeliver",
      String(hook.id),
      String(deliveries.data[0].id),
      "--store",
      String(storeId),
    );
    assert.deepEqual(redelivered, { data: { queued: 1, event_ids: [eventId] } });
    const table = await cli("deliveries", "list", String(hook.id), "--store", String(storeId));
    assert.match(
      table.stdout,
      /^ID\s+TIME\s+EVENT\s+EVENT ID\s+TRY\s+RESULT\s+HTTP\s+MS\s+NEXT ATTEMPT\s+ERROR$/m,
    );
    assert.match(table.stdout, new RegExp(`webhook\\.test\\s+${eventId}\\s+1\\s+failed`));
    const missing = await cli("deliveries", "999999", "--store", String(storeId));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^error: not_found \(HTTP 404\)/);
  });

  test("db migrate applies the migrations once; worker runs on the same storage and stops on SIGTERM", async () => {
    let storage: Record<string, string>;
    let cleanup: () => Promise<void>;
    if (PG_URL) {
      const db = await freshDatabase();
      storage = { DATABASE_URL: db.url };
      cleanup = db.drop;
    } else {
      const dir = mkdtempSync(path.join(os.tmpdir(), "stockroom-migrate-"));
      storage = { DATA_DIR: dir };
      cleanup = async () => rmSync(dir, { recursive: true, force: true });
    }
    try {
      const first = await run(["db", "migrate", "--json"], storage);
      assert.equal(first.code, 0, first.stderr);
      assert.equal(first.json.database, PG_URL ? "postgres" : "pglite");
      assert.ok(first.json.applied.length >= 7);
      assert.equal(first.json.applied[0], "001_foundation");
      assert.deepEqual(first.json.applied, first.json.current);
      const again = await run(["db", "migrate"], storage);
      assert.equal(again.code, 0, again.stderr);
      assert.match(
        again.stdout,
        new RegExp(`is up to date \\(${first.json.current.length} migrations\\)\\.\\n$`),
      );

      const worker = spawn(process.execPath, [BIN, "worker"], {
        cwd: ROOT,
        env: childEnv({ ...storage, LOG_LEVEL: "info", ADMIN_TOKEN: TOKEN }),
      });
      let output = "";
      worker.stdout.on("data", (d) => (output += d));
      worker.stderr.on("data", (d) => (output += d));
      await new Promise<void>((resolve, reject) => {
        worker.stdout.on("data", () => {
          if (output.includes('"msg":"worker started"')) resolve();
        });
        worker.once("exit", (code) => reject(new Error(`worker exited with ${code}:\n${output}`)));
      });
      worker.removeAllListeners("exit");
      assert.equal(await stopChildServer(worker), 0);
    } finally {
      await cleanup();
    }

    const badUrl = await run(["db", "migrate", "--database-url", "mysql://nope"], {});
    assert.equal(badUrl.code, 2);
    assert.match(
      badUrl.stderr,
      /^error: Configuration error: DATABASE_URL must use postgres: or postgresql:/,
    );
  });

  test("stores create --platform shopify attaches by token; list and show carry the shop's state; a new token", async () => {
    const { shop, accessToken } = standin.addShop("cli-shop.myshopify.com", {
      name: "CLI Shopify",
      currency: "CAD",
      timezone: "America/Toronto",
    });
    shop.seed({ products: 2, locations: 1 });
    const refused = await cli(
      "stores",
      "create",
      "--platform",
      "shopify",
      "--shop",
      "cli-shop.myshopify.com",
      "--access-token",
      "shpat_wrong",
    );
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      "error: validation_failed (HTTP 422): shopify.access_token: was refused by Shopify for cli-shop.myshopify.com\n" +
        "  - shopify.access_token: was refused by Shopify for cli-shop.myshopify.com [invalid_value]\n",
    );
    const noToken = await cli(
      "stores",
      "create",
      "--platform",
      "shopify",
      "--shop",
      "cli-shop.myshopify.com",
    );
    assert.equal(noToken.code, 2);
    assert.equal(noToken.stderr, "error: A Shopify store needs --shop and --access-token.\n");

    const created = await json(
      "stores",
      "create",
      "--platform",
      "shopify",
      "--shop",
      "cli-shop.myshopify.com",
      "--access-token",
      accessToken,
    );
    const id = created.data.id;
    assert.deepEqual(
      [created.data.name, created.data.currency, created.data.timezone, created.data.platform],
      ["CLI Shopify", "CAD", "America/Toronto", "shopify"],
    );
    assert.equal(created.data.shopify.shop, "cli-shop.myshopify.com");
    assert.ok(!JSON.stringify(created).includes(accessToken), "the token is never shown");
    // The server's worker imports the shop; the list shows the state it reaches.
    await waitFor(
      async () => (await admin("GET", `/admin/stores/${id}`)).body.data.shopify.status === "connected",
    );
    const table = await cli("stores", "list");
    assert.match(
      table.stdout,
      new RegExp(
        `^\\s*${id}\\s+CLI Shopify\\s+cli-shop\\.myshopify\\.com\\s+CAD\\s+America/Toronto\\s+shopify connected\\s+on\\s+`,
        "m",
      ),
    );
    const record = await cli("stores", "show", String(id));
    assert.match(record.stdout, /^shopify\.status:\s+connected$/m);
    assert.match(record.stdout, /^shopify\.shop:\s+cli-shop\.myshopify\.com$/m);

    const fresh = standin.tokens.issueFixed(
      shop,
      "read_products,read_inventory,write_inventory,read_locations",
    );
    const updated = await json("stores", "update", String(id), "--shopify-access-token", fresh);
    assert.equal(updated.data.shopify.status, "connected");
    assert.ok(!JSON.stringify(updated).includes(fresh));
  });

  test("a reader that closes the pipe early (`stockroom … | head`) ends the command quietly", async () => {
    const ended = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, "--help"], { cwd: ROOT, env: childEnv({}) });
      // Closed before the command writes: its first write fails with EPIPE.
      child.stdout.destroy();
      let stderr = "";
      child.stderr.on("data", (d) => (stderr += d));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stderr }));
    });
    assert.deepEqual(ended, { code: 0, stderr: "" });
  });

  test("npx stockroom runs the package's bin", async () => {
    const help = await new Promise<Run>((resolve, reject) => {
      const child = spawn("npx", ["--no-install", "stockroom", "--help"], { cwd: ROOT, env: childEnv({}) });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stdout, stderr, json: undefined }));
    });
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Usage: stockroom \[options\] \[command\]/);
    for (const command of [
      "stores",
      "keys",
      "api-access",
      "request-log",
      "webhooks",
      "deliveries",
      "sync",
      "alert-rules",
      "platform",
      "db",
      "serve",
      "worker",
    ])
      assert.match(help.stdout, new RegExp(`^ {2}${command}\\b`, "m"), command);
  });
});
