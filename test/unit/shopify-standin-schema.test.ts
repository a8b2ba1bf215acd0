/**
 * The Shopify stand-in validates what it receives against the real Admin API schema (issue 19 item 6):
 * every document shape the connector uses passes, and a mistake in one is refused the way Shopify refuses it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as documents from "../shopify-standin/documents.ts";
import { checkDocument } from "../shopify-standin/validate.ts";

describe("Shopify stand-in: schema validation", () => {
  for (const [name, source] of Object.entries(documents)) {
    it(`accepts the ${name} document`, () => {
      const checked = checkDocument(source);
      assert.deepEqual(checked.ok ? [] : checked.errors, []);
    });
  }

  it("refuses a typo'd field with Shopify's message and code", () => {
    const checked = checkDocument("query { shop { name currencyCod } }");
    assert.equal(checked.ok, false);
    assert.deepEqual(!checked.ok && checked.errors, [
      {
        message: "Field 'currencyCod' doesn't exist on type 'Shop'",
        locations: [{ line: 1, column: 21 }],
        extensions: { code: "undefinedField", typeName: "Shop", fieldName: "currencyCod" },
      },
    ]);
  });

  it("refuses an argument the field does not take", () => {
    const checked = checkDocument("query { products(frist: 10) { nodes { id } } }");
    assert.deepEqual(!checked.ok && checked.errors, [
      {
        message: "Field 'products' doesn't accept argument 'frist'",
        locations: [{ line: 1, column: 18 }],
        extensions: {
          code: "argumentNotAccepted",
          name: "products",
          typeName: "Field",
          argumentName: "frist",
        },
      },
    ]);
  });

  it("refuses an input field the schema does not have (quantity on a change)", () => {
    const checked =
      checkDocument(`mutation { inventoryAdjustQuantities(input: {name: "available", reason: "received",
      changes: [{inventoryItemId: "gid://shopify/InventoryItem/1", locationId: "gid://shopify/Location/1",
        quantity: 1, delta: 1, changeFromQuantity: null}]}) @idempotent(key: "k") { userErrors { message } } }`);
    assert.equal(checked.ok, false);
    assert.match(
      !checked.ok ? checked.errors[0].message : "",
      /"quantity" is not defined by type "InventoryChangeInput"/,
    );
  });

  it("refuses a document that does not parse, with its location", () => {
    const checked = checkDocument("query { shop { name }");
    assert.deepEqual(!checked.ok && checked.errors, [
      { message: "Syntax Error: Expected Name, found <EOF>.", locations: [{ line: 1, column: 22 }] },
    ]);
  });
});
