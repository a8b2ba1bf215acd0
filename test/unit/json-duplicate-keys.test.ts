import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { firstDuplicateKey } from "../../src/http/plugins/json-body.ts";

describe("firstDuplicateKey", () => {
  test("JSON written by JSON.stringify never has one, compact or indented", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        assert.equal(firstDuplicateKey(JSON.stringify(value)), null);
        assert.equal(firstDuplicateKey(JSON.stringify(value, null, 2)), null);
      }),
      { seed: 7, numRuns: 2000 },
    );
  });

  test("a key repeated in any one object is found, decoded", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1, maxKeys: 5 }),
        fc.nat(4),
        fc.jsonValue(),
        (object, depth, again) => {
          const [key] = Object.keys(object);
          let text = `${JSON.stringify(object).slice(0, -1)},${JSON.stringify(key)}:${JSON.stringify(again)}}`;
          for (let i = 0; i < depth; i++) text = i % 2 ? `[1,${text}]` : `{"wrap":${text},"x":[{}]}`;
          assert.equal(firstDuplicateKey(text), key);
        },
      ),
      { seed: 7, numRuns: 1000 },
    );
  });

  test("escapes, brackets and commas inside strings are read as text", () => {
    assert.equal(firstDuplicateKey('{"{":1,"[":2,",":3,"}":"]","a\\"b":[",{"],"x":{"a\\"b":1}}'), null);
    assert.equal(firstDuplicateKey('{"a\\"b":1,"a\\u0022b":2}'), 'a"b');
    assert.equal(firstDuplicateKey('[{"a":1},{"a":1}]'), null);
    assert.equal(firstDuplicateKey('{"a":{"b":1},"c":{"b":2},"a":0}'), "a");
  });
});
