import assert from "node:assert/strict";
import { type AddressInfo, connect } from "node:net";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** Writes bytes as they are to a listening service and reads one response (the edges inject skips). */
function rawRequest(port: number, request: Buffer | string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on("data", (d) => {
      chunks.push(d);
      const parsed = parse(Buffer.concat(chunks));
      if (parsed) {
        socket.destroy();
        resolve(parsed);
      }
    });
    socket.on("error", reject);
    socket.on("close", () => {
      const parsed = parse(Buffer.concat(chunks));
      if (parsed) resolve(parsed);
      else reject(new Error(`incomplete response: ${Buffer.concat(chunks).toString("latin1")}`));
    });
  });
}

function parse(data: Buffer): RawResponse | null {
  const end = data.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const [statusLine, ...lines] = data.subarray(0, end).toString("latin1").split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers["content-length"] ?? 0);
  if (data.length < end + 4 + length) return null;
  const text = data.subarray(end + 4, end + 4 + length).toString("utf8");
  return {
    status: Number(statusLine.split(" ")[1]),
    headers,
    body: /json/.test(headers["content-type"] ?? "") && text !== "" ? JSON.parse(text) : text,
  };
}

function http(
  method: string,
  path: string,
  headers: Record<string, string | number>,
  body?: Buffer | string,
) {
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body);
  const head = [`${method} ${path} HTTP/1.1`, "Host: localhost", "Connection: close"];
  for (const [name, value] of Object.entries(headers)) head.push(`${name}: ${value}`);
  if (body !== undefined) head.push(`Content-Length: ${payload.length}`);
  return Buffer.concat([Buffer.from(`${head.join("\r\n")}\r\n\r\n`, "latin1"), payload]);
}

function assertBadRequest(res: RawResponse, status: number, message: RegExp) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.match(res.headers["content-type"], /^application\/json; charset=utf-8$/);
  assert.deepEqual(Object.keys(res.body), ["error"]);
  assert.equal(res.body.error.code, "bad_request");
  assert.match(res.body.error.message, message);
}

describe("HTTP edges answer in the error envelope", () => {
  let t: TestApp;
  let store: TestStore;
  let port: number;
  let auth: Record<string, string>;

  before(async () => {
    t = await startTestApp({ env: { REQUEST_TIMEOUT_MS: "1000" } });
    store = await t.createStore();
    auth = { Authorization: `Bearer ${store.key}` };
    await t.runtime.app.listen({ port: 0, host: "127.0.0.1" });
    port = (t.runtime.app.server.address() as AddressInfo).port;
  });
  after(async () => {
    await t.close();
  });

  const supplierCount = async () => (await store.api.get("/v2/suppliers?limit=250")).body.data.length;

  test("a malformed URL is 400 bad_request", async () => {
    const res = await rawRequest(port, http("GET", "/v2/suppliers/%zz", auth));
    assertBadRequest(res, 400, /^The URL is not valid: check its percent-encoding\.$/);
    assert.match(res.headers["x-request-id"], /^req_/);
  });

  test("headers too large are 431, a malformed header line 400, a request too slow 408", async () => {
    assertBadRequest(
      await rawRequest(port, http("GET", "/v2/whoami", { ...auth, "X-Big": "a".repeat(20_000) })),
      431,
      /^The request headers are too large\.$/,
    );
    assertBadRequest(
      await rawRequest(port, http("GET", "/v2/whoami", { "Bad Header": "x" })),
      400,
      /^The request could not be read: its request line or headers are malformed\.$/,
    );
    // Headers never finished: the service gives up after REQUEST_TIMEOUT_MS (1 s here).
    assertBadRequest(
      await rawRequest(port, "GET /v2/whoami HTTP/1.1\r\nHost: localhost\r\n"),
      408,
      /^The request was not received in time\.$/,
    );
  });

  test("an unsupported method on an existing path is 405 with Allow; an unknown path stays 404", async () => {
    const whoami = await t.client(`Bearer ${store.key}`).delete("/v2/whoami");
    assert.equal(whoami.status, 405);
    assert.equal(whoami.headers.allow, "GET, HEAD");
    assert.deepEqual(whoami.body, {
      error: { code: "bad_request", message: "/v2/whoami does not accept DELETE; use GET, HEAD." },
    });
    const supplier = await store.api.put("/v2/suppliers/1", {});
    assert.equal(supplier.status, 405);
    assert.equal(supplier.headers.allow, "GET, HEAD, PATCH");
    const unknown = await store.api.get("/v2/nothing_here");
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, {
      error: { code: "not_found", message: "No route GET /v2/nothing_here." },
    });
  });

  test("401 names the Bearer scheme, on the API and the admin API", async () => {
    for (const res of [
      await t.client().get("/v2/whoami"),
      await t.client("Bearer sk_live_nope").get("/v2/whoami"),
      await t.client().get("/admin/stores"),
    ]) {
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, "unauthorized");
      assert.equal(res.headers["www-authenticate"], "Bearer");
    }
  });

  test("path and query numbers are plain decimal: 0x10, ' 1', 1e1 and +1 find nothing", async () => {
    let sixteen = 0;
    while (sixteen < 16)
      sixteen = (await store.api.post("/v2/suppliers", { name: `S${sixteen}` })).body.data.id;
    assert.equal(sixteen, 16);
    assert.equal((await store.api.get("/v2/suppliers/16")).status, 200);
    assert.equal((await store.api.get("/v2/suppliers/1")).status, 200);
    for (const id of ["0x10", "%201", "1%20", "1e1", "+1", "0b1", "1.0"]) {
      const res = await store.api.get(`/v2/suppliers/${id}`);
      assert.equal(res.status, 422, id);
      assert.deepEqual(
        res.body,
        {
          error: {
            code: "validation_failed",
            message: "id: must be an integer",
            details: [{ field: "id", code: "invalid_type", message: "must be an integer" }],
          },
        },
        id,
      );
    }
    const limit = await store.api.get("/v2/suppliers?limit=0x2");
    assert.equal(limit.status, 422);
    assert.deepEqual(limit.body.error.details, [
      { field: "limit", code: "invalid_type", message: "must be an integer" },
    ]);
    assert.equal((await store.api.get("/v2/suppliers?limit=2")).body.data.length, 2);
  });

  test("invalid UTF-8 in a body is 400 and writes nothing", async () => {
    const before = await supplierCount();
    const body = Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const res = await rawRequest(
      port,
      http("POST", "/v2/suppliers", { ...auth, "Content-Type": "application/json" }, body),
    );
    assertBadRequest(res, 400, /^The body is not valid UTF-8\.$/);
    assert.equal(await supplierCount(), before);
    const valid = await rawRequest(
      port,
      http("POST", "/v2/suppliers", { ...auth, "Content-Type": "application/json" }, '{"name":"café"}'),
    );
    assert.equal(valid.status, 201);
    assert.equal(valid.body.data.name, "café");
  });

  test("a charset other than UTF-8 is 415; utf-8 in any case is read", async () => {
    const before = await supplierCount();
    for (const charset of ["iso-8859-1", "utf-16", '"latin1"']) {
      const res = await store.api.post("/v2/suppliers", '{"name":"L"}', {
        "content-type": `application/json; charset=${charset}`,
      });
      assert.equal(res.status, 415, charset);
      assert.deepEqual(res.body, {
        error: {
          code: "bad_request",
          message: `The body must be JSON in UTF-8; charset=${charset.replace(/"/g, "").toLowerCase()} is not supported.`,
        },
      });
    }
    assert.equal(await supplierCount(), before);
    const ok = await store.api.post("/v2/suppliers", '{"name":"U"}', {
      "content-type": "application/json; charset=UTF-8",
    });
    assert.equal(ok.status, 201);
  });

  test("a JSON object naming a key twice is 400, however the key is escaped or deep", async () => {
    const before = await supplierCount();
    for (const [body, key] of [
      ['{"name":"A","name":"B"}', "name"],
      ['{"name":"A","n\\u0061me":"B"}', "name"],
      ['{"name":"A","location_account_numbers":{"1":"x","2":"y","1":"z"}}', "1"],
    ]) {
      const res = await store.api.post("/v2/suppliers", body);
      assert.equal(res.status, 400, body);
      assert.deepEqual(res.body, {
        error: {
          code: "bad_request",
          message: `The body is not valid JSON: the key "${key}" appears twice in one object.`,
        },
      });
    }
    assert.equal(await supplierCount(), before);
    // The same key in sibling objects, and key-like strings as values, are fine.
    const ok = await store.api.post(
      "/v2/suppliers",
      '{"name":"name","notes":"{\\"name\\":1}","location_account_numbers":{"name":"a"},"email_cc":[]}',
    );
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
  });

  test("the Idempotency-Key length is counted in characters, not bytes", async () => {
    const post = (key: string, name: string) =>
      rawRequest(
        port,
        http(
          "POST",
          "/v2/suppliers",
          {
            ...auth,
            "Content-Type": "application/json",
            "Idempotency-Key": Buffer.from(key).toString("latin1"),
          },
          JSON.stringify({ name }),
        ),
      );
    // 255 characters, 510 bytes: within the contract's limit.
    const ok = await post("é".repeat(255), "Accented key");
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    const replay = await post("é".repeat(255), "Accented key");
    assert.equal(replay.status, 201);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.equal(replay.body.data.id, ok.body.data.id);
    const long = await post("é".repeat(256), "Too long");
    assertBadRequest(long, 400, /^The Idempotency-Key header is longer than 255 characters\.$/);
  });
});
