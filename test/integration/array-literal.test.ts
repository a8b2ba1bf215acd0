/**
 * Array parameters sent as PostgreSQL's array literal (db/bulk.ts `arrayParam`, one text value) store
 * what the drivers' own array parameters store, for every element type the bulk statements use and
 * the values that need quoting or escaping, on both databases.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { arrayLiteral, arrayParam, type ElementType } from "../../src/db/bulk.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";

const at = new Date("2026-11-27T03:04:05.678Z");

const VALUES: Array<[ElementType, unknown[]]> = [
  ["int", [0, -5, 2147483647, null, 42]],
  ["bigint", [9007199254740991, "1234567890123456789", null, -1]],
  ["numeric", ["1.50000000", "-0.1", 3.25, 1e-7, null, "12345678901234.00000001"]],
  [
    "text",
    ['a"b', "back\\slash", '\\"', "{}", "a,b", " spaced ", "NULL", "", "ünïcode ✓", null, "line\nbreak"],
  ],
  ["boolean", [true, false, null]],
  ["timestamptz", [at, null, "2026-01-01T00:00:00.000Z"]],
  ["date", ["2026-11-27", null]],
  ["jsonb", [{ a: 'x"y', b: [1, "\\"] }, '{"k":1}', null, "[]"]],
  // One value in every row (written once and repeated), and no rows.
  ["text", ['a"b', 'a"b', 'a"b']],
  ["timestamptz", [at, at, at]],
  ["int", [7, 7]],
  ["bigint", [null, null]],
  ["text", []],
];

/** What the drivers were given before: the values as an array, instants as ISO text, JSON as text. */
function driverElement(type: ElementType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (type === "jsonb" && typeof value !== "string") return JSON.stringify(value);
  return value;
}

describe("array parameters as one literal", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  for (const [type, values] of VALUES) {
    test(`${type} ${JSON.stringify(values).slice(0, 40)}: the literal stores what the driver's array stores`, async () => {
      const db = t.runtime.ctx.db;
      const asText = (param: unknown) =>
        sql<{
          v: string | null;
        }>`select u.v::text as v from unnest(${param}) with ordinality as u(v, n) order by n`;
      const literal = await asText(arrayParam(type, values)).execute(db);
      const driver = await asText(
        sql`${values.map((v) => driverElement(type, v))}::${sql.raw(type)}[]`,
      ).execute(db);
      assert.equal(literal.rows.length, values.length);
      assert.deepEqual(literal.rows, driver.rows);
    });
  }

  test("the literal's text", () => {
    assert.equal(arrayLiteral("int", [1, null, -2]), "{1,NULL,-2}");
    assert.equal(arrayLiteral("text", ['a"b', "c\\d", "", null]), '{"a\\"b","c\\\\d","",NULL}');
    assert.equal(arrayLiteral("boolean", [true, false]), "{t,f}");
    assert.equal(arrayLiteral("timestamptz", [at]), '{"2026-11-27T03:04:05.678Z"}');
    assert.equal(arrayLiteral("int", [7, 7, 7]), "{7,7,7}");
    assert.equal(arrayLiteral("text", ['a"b', 'a"b']), '{"a\\"b","a\\"b"}');
    assert.equal(arrayLiteral("int", []), "{}");
  });
});
