/**
 * Bad input over every route of GET /v2/openapi.json: requests generated with fast-check from each
 * route's own schemas (path ids, query, body), both schema-valid (to reach the handlers' rules) and
 * mutated (wrong types, boundary and out-of-range values, huge and hostile strings, unknown and missing
 * fields), then hostile raw bodies (invalid UTF-8, deep JSON, over 1 MiB, non-objects, prototype keys,
 * wrong media types), bad path ids, bad cursors and bad keys. Every answer: no 5xx; every refusal in
 * the error envelope; a refused request wrote nothing (table fingerprints before and after).
 *
 * Repeatable: a fixed seed (FUZZ_SEED overrides it) and a fixed number of runs per route (FUZZ_RUNS).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { startTestApp, type TestApp } from "../../helpers/app.ts";
import { walkableDocument } from "../../helpers/openapi.ts";
import { changedTables, fingerprinter } from "../helpers/fingerprint.ts";
import { type Populated, populate } from "../helpers/fixture.ts";
import {
  idsFor as knownIdsFor,
  pathIds as knownPathIds,
  stringsFor as knownStringsFor,
} from "../helpers/known-values.ts";
import { type JsonSchema, schemaArb } from "../helpers/schema-arbitrary.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20301);
const RUNS = Number(process.env.FUZZ_RUNS ?? 16);

interface Operation {
  method: string;
  path: string;
  parameters: Array<{ name: string; in: "path" | "query"; required?: boolean; schema: JsonSchema }>;
  body: JsonSchema | null;
  idempotency: boolean;
}

interface Request {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  label: string;
}

interface Violation {
  label: string;
  method: string;
  url: string;
  status: number;
  problem: string;
  body: string;
}

const WRITE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

describe("fuzz: bad input over every route of the OpenAPI document", () => {
  let t: TestApp;
  let fx: Populated;
  let operations: Operation[];
  let fingerprint: () => Promise<Record<string, string>>;
  let last: Record<string, string>;
  const violations: Violation[] = [];
  const newStats = () => ({
    requests: 0,
    byStatus: new Map<number, number>(),
    byLabel: {} as Record<string, Record<number, number>>,
    refusals: 0,
  });
  let stats = newStats();
  const successfulWrites = () =>
    Object.entries(stats.byLabel)
      .filter(([label]) => WRITE.has(label.split(" ")[0]))
      .reduce(
        (n, [, tally]) =>
          n +
          Object.entries(tally)
            .filter(([st]) => Number(st) < 300)
            .reduce((m, [, c]) => m + c, 0),
        0,
      );
  const statusCounts = () => Object.fromEntries([...stats.byStatus].sort((x, y) => x[0] - y[0]));
  let keyCounter = 0;

  before(async () => {
    t = await startTestApp();
    fx = await populate(t, "FUZZ");
    // Named shapes are `$ref`s into components: read each route's schemas resolved, one type a node.
    const doc = walkableDocument((await fx.store.api.get("/v2/openapi.json")).body);
    operations = [];
    for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(methods)) {
        operations.push({
          method: method.toUpperCase(),
          path,
          parameters: op.parameters ?? [],
          body: op.requestBody?.content?.["application/json"]?.schema ?? null,
          idempotency:
            (path.endsWith("/receipts") && method === "post") ||
            (path.endsWith("/apply") && method === "post"),
        });
      }
    }
    fingerprint = await fingerprinter(t.runtime.ctx.db);
    last = await fingerprint();
  });
  after(() => t.close());

  const pathIds = (path: string, param: string) => knownPathIds(fx, path, param);
  const idsFor = (field: string) => knownIdsFor(fx, field);
  const stringsFor = (field: string) => knownStringsFor(fx, field);

  function describeBody(payload: Request["payload"]): string {
    if (payload === undefined) return "";
    const text = Buffer.isBuffer(payload) ? `<${payload.length} bytes>` : payload;
    return text.length > 300 ? `${text.slice(0, 300)}…(${text.length} chars)` : text;
  }

  /** Sends one request and checks the three rules. */
  async function check(request: Request): Promise<number> {
    const res = await t.runtime.app.inject({
      method: request.method as "GET",
      url: request.url,
      headers: request.headers,
      ...(request.payload !== undefined && { payload: request.payload }),
    });
    stats.requests++;
    stats.byStatus.set(res.statusCode, (stats.byStatus.get(res.statusCode) ?? 0) + 1);
    stats.byLabel[request.label] ??= {};
    const tally = stats.byLabel[request.label];
    tally[res.statusCode] = (tally[res.statusCode] ?? 0) + 1;
    const now = await fingerprint();
    const violation = (problem: string) =>
      violations.push({
        label: request.label,
        method: request.method,
        url: request.url.slice(0, 300),
        status: res.statusCode,
        problem,
        body: `${describeBody(request.payload)} -> ${res.body.slice(0, 300)}`,
      });
    if (res.statusCode >= 500) violation("5xx");
    if (res.statusCode >= 400) {
      stats.refusals++;
      let parsed: any = null;
      try {
        parsed = JSON.parse(res.body);
      } catch {
        // reported below
      }
      const error = parsed?.error;
      const envelope =
        error &&
        typeof error.code === "string" &&
        typeof error.message === "string" &&
        Object.keys(parsed).length === 1 &&
        (error.details === undefined ||
          (Array.isArray(error.details) &&
            error.details.every(
              (d: any) =>
                typeof d.field === "string" && typeof d.code === "string" && typeof d.message === "string",
            )));
      if (!envelope) violation("not in the error envelope");
      const changed = changedTables(last, now);
      if (changed.length > 0) violation(`refused but wrote to ${changed.join(", ")}`);
    }
    last = now;
    return res.statusCode;
  }

  function headersFor(
    op: Operation,
    mode: "valid" | "mutated",
    hasBody: boolean,
  ): fc.Arbitrary<Record<string, string>> {
    const base: Record<string, string> = { authorization: `Bearer ${fx.store.key}` };
    if (hasBody) base["content-type"] = "application/json";
    if (!WRITE.has(op.method)) return fc.constant(base);
    const fresh = fc.constant(null).map(() => ({ ...base, "idempotency-key": `fz-${++keyCounter}` }));
    if (mode === "valid") return op.idempotency ? fresh : fc.oneof(fresh, fc.constant(base));
    return fc.oneof(
      { weight: 4, arbitrary: fresh },
      { weight: 1, arbitrary: fc.constant(base) },
      {
        weight: 1,
        arbitrary: fc.constantFrom("", " ", "k".repeat(256), "reused-key", "ключ-✓").map((k) => ({
          ...base,
          "idempotency-key": k,
        })),
      },
    );
  }

  function requestArb(op: Operation, mode: "valid" | "mutated"): fc.Arbitrary<Request> {
    const options = { mutate: mode === "mutated", idsFor, stringsFor };
    const pathParams = op.parameters.filter((p) => p.in === "path");
    const queryParams = op.parameters.filter((p) => p.in === "query");
    const pathArb = fc.tuple(
      ...pathParams.map((p) => {
        const known = pathIds(op.path, p.name);
        const valid = known.length ? fc.constantFrom(...known) : fc.integer({ min: 1, max: 10_000 });
        return mode === "valid"
          ? valid
          : fc.oneof(
              { weight: 3, arbitrary: valid },
              { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 ** 31 - 1 }) },
              {
                weight: 1,
                arbitrary: fc.constantFrom(
                  0,
                  -1,
                  2 ** 31,
                  "abc",
                  "1.5",
                  "1e3",
                  "%20",
                  "99999999999999999999",
                  "0x1f",
                ),
              },
            );
      }),
    );
    const queryArb = fc.tuple(
      ...queryParams
        .filter((p) => mode === "mutated" || p.name !== "cursor")
        .map((p) =>
          fc
            .option(schemaArb(p.schema, options, p.name), { nil: undefined, freq: 2 })
            .map((v) => [p.name, v] as const),
        ),
    );
    const bodyArb: fc.Arbitrary<unknown> = op.body ? schemaArb(op.body, options) : fc.constant(undefined);
    return fc
      .tuple(pathArb, queryArb, bodyArb, headersFor(op, mode, op.body !== null), fc.boolean())
      .map(([pathValues, query, body, headers, extraQuery]) => {
        let url = op.path;
        pathParams.forEach((p, i) => {
          url = url.replace(`{${p.name}}`, encodeURIComponent(String(pathValues[i])));
        });
        const search = new URLSearchParams();
        for (const [name, value] of query as ReadonlyArray<readonly [string, unknown]>) {
          if (value === undefined) continue;
          search.append(name, typeof value === "string" ? value : JSON.stringify(value));
        }
        if (mode === "mutated" && extraQuery) search.append("unknown_param", "1");
        const qs = search.toString();
        return {
          method: op.method,
          url: qs ? `${url}?${qs}` : url,
          headers,
          ...(body !== undefined && { payload: JSON.stringify(body) }),
          label: `${op.method} ${op.path} (${mode})`,
        };
      });
  }

  test("bad path ids, bad cursors, bad or missing keys on every route", async (tt) => {
    stats = newStats();
    const auth = { authorization: `Bearer ${fx.store.key}` };
    const badIds = [
      "0",
      "-1",
      "2147483648",
      "abc",
      "1.5",
      "1e3",
      "%20",
      "99999999999999999999",
      "null",
      "1;drop",
    ];
    let sent = 0;
    const listCursor = (await fx.store.api.get("/v2/suppliers?limit=1")).body.next_cursor as string;
    assert.ok(listCursor);
    for (const op of operations) {
      const pathParams = op.parameters.filter((p) => p.in === "path");
      const fill = (override?: [string, string]) => {
        let url = op.path;
        for (const p of pathParams) {
          const value =
            override && override[0] === p.name ? override[1] : String(pathIds(op.path, p.name)[0] ?? 1);
          url = url.replace(`{${p.name}}`, value);
        }
        return url;
      };
      const payload = op.body ? "{}" : undefined;
      const headers = (extra: Record<string, string> = {}) => ({
        ...(op.body ? { "content-type": "application/json" } : {}),
        ...(WRITE.has(op.method) ? { "idempotency-key": `bad-${++keyCounter}` } : {}),
        ...extra,
      });
      for (const p of pathParams) {
        for (const bad of badIds) {
          const status = await check({
            method: op.method,
            url: fill([p.name, bad]),
            headers: headers(auth),
            payload,
            label: `${op.method} ${op.path}: ${p.name}=${bad}`,
          });
          sent++;
          assert.ok(
            status === 404 || status === 422 || status === 400,
            `${op.method} ${op.path} ${p.name}=${bad}: ${status}`,
          );
        }
      }
      if (op.parameters.some((p) => p.name === "cursor")) {
        const cursors = [
          "garbage",
          "eyJhIjoxfQ",
          "a".repeat(2048),
          "%00",
          op.path === "/v2/suppliers" ? null : listCursor,
        ];
        for (const cursor of cursors) {
          if (cursor === null) continue;
          const status = await check({
            method: op.method,
            url: `${fill()}?cursor=${encodeURIComponent(cursor)}`,
            headers: headers(auth),
            label: `${op.method} ${op.path}: cursor ${cursor.slice(0, 20)}`,
          });
          sent++;
          assert.equal(status, 400, `${op.path} cursor ${cursor.slice(0, 20)}`);
        }
      }
      for (const authorization of [undefined, "Bearer sr2_nope", "Basic abc", `Bearer ${fx.store.key}x`]) {
        const status = await check({
          method: op.method,
          url: fill(),
          headers: headers(authorization === undefined ? {} : { authorization }),
          payload,
          label: `${op.method} ${op.path}: authorization ${authorization?.slice(0, 12)}`,
        });
        sent++;
        assert.equal(status, 401, `${op.method} ${op.path} with authorization ${authorization}`);
      }
    }
    tt.diagnostic(`figures ${JSON.stringify({ requests: sent, byStatus: statusCounts() })}`);
    assert.deepEqual(violations.slice(0, 25), [], `${violations.length} violations`);
  });
  test("hostile raw bodies on every route that takes one", async (tt) => {
    stats = newStats();
    const auth = { authorization: `Bearer ${fx.store.key}` };
    let deepObject = "1";
    for (let i = 0; i < 5000; i++) deepObject = `{"a":${deepObject}}`;
    const deepArray = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const bodies: Array<[string, string | Buffer, string?]> = [
      [
        "invalid UTF-8",
        Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from('"}')]),
      ],
      [
        "invalid UTF-8 key",
        Buffer.concat([Buffer.from('{"'), Buffer.from([0xc0, 0xaf]), Buffer.from('":1}')]),
      ],
      [
        "overlong NUL",
        Buffer.concat([Buffer.from('{"note":"a'), Buffer.from([0xc0, 0x80]), Buffer.from('b"}')]),
      ],
      ["deep object", deepObject],
      ["deep array", deepArray],
      ["over 1 MiB", JSON.stringify({ note: "x".repeat(1_100_000) })],
      ["array", "[]"],
      ["string", '"text"'],
      ["number", "42"],
      ["null", "null"],
      ["true", "true"],
      ["truncated", '{"name": "a'],
      ["trailing garbage", '{"name":"a"} x'],
      ["empty object with BOM", "\ufeff{}"],
      ["__proto__", '{"__proto__":{"polluted":true},"name":"p"}'],
      ["constructor.prototype", '{"constructor":{"prototype":{"polluted":true}}}'],
      ["duplicate keys", '{"name":"a","name":"b"}'],
      ["NUL escape", '{"name":"a\\u0000b","note":"\\u0000"}'],
      ["lone surrogate escape", '{"name":"\\ud800","note":"\\udfff"}'],
      ["big number", '{"name":"n","lead_time_days":1e400,"quantity":123456789012345678901234567890}'],
      ["text/plain", '{"name":"a"}', "text/plain"],
      ["form", "name=a", "application/x-www-form-urlencoded"],
      ["json with charset", '{"name":"a"}', "application/json; charset=latin1"],
      ["no content type", '{"name":"a"}', ""],
    ];
    let sent = 0;
    for (const op of operations.filter((o) => o.body !== null)) {
      let url = op.path;
      for (const p of op.parameters.filter((x) => x.in === "path")) {
        url = url.replace(`{${p.name}}`, String(pathIds(op.path, p.name)[0] ?? 1));
      }
      for (const [label, payload, contentType] of bodies) {
        const headers: Record<string, string> = { ...auth, "idempotency-key": `raw-${++keyCounter}` };
        if (contentType !== "") headers["content-type"] = contentType ?? "application/json";
        const status = await check({
          method: op.method,
          url,
          headers,
          payload,
          label: `${op.method} ${op.path}: ${label}`,
        });
        sent++;
        if (label === "over 1 MiB") assert.equal(status, 413, `${op.method} ${op.path}`);
        if (label === "__proto__" || label === "constructor.prototype")
          assert.ok(status >= 400 && status < 500);
      }
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined, "Object.prototype was polluted");
    tt.diagnostic(
      `figures ${JSON.stringify({ hostileBodies: bodies.length, requests: sent, byStatus: statusCounts() })}`,
    );
    assert.deepEqual(violations.slice(0, 25), [], `${violations.length} violations`);
  });

  test("generated requests (schema-valid and mutated) over every route", { timeout: 600_000 }, async (tt) => {
    stats = newStats();
    assert.ok(operations.length >= 55, `only ${operations.length} operations in the document`);
    let seed = SEED;
    for (const op of operations) {
      for (const mode of ["valid", "mutated"] as const) {
        const requests = fc.sample(requestArb(op, mode), { numRuns: RUNS, seed: seed++ });
        for (const request of requests) await check(request);
      }
    }
    tt.diagnostic(
      `figures ${JSON.stringify({ operations: operations.length, requests: stats.requests, refusals: stats.refusals, byStatus: statusCounts(), successfulWrites: successfulWrites() })}`,
    );
    assert.deepEqual(violations.slice(0, 25), [], `${violations.length} violations`);
  });
});
