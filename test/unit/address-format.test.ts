import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatAddressLines, shipToLines } from "../../src/domain/documents/address-format.ts";
import { countLabel, taxLabel } from "../../src/domain/documents/labels.ts";

const portland = { line1: "1 Main St", line2: null, city: "Portland", province: "OR", zip: "97209" };

describe("addresses in the country's format", () => {
  it("a US address ends with city, state and ZIP on one line, whatever the country is called", () => {
    for (const country of ["US", "usa", "United States", "United States of America"]) {
      assert.deepEqual(formatAddressLines({ ...portland, country }), [
        "1 Main St",
        "Portland, OR 97209",
        country,
      ]);
    }
  });

  it("a location's ISO code picks the format when its country name is missing", () => {
    assert.deepEqual(formatAddressLines({ ...portland, country: null, country_code: "US" }), [
      "1 Main St",
      "Portland, OR 97209",
      "US",
    ]);
  });

  it("Canada writes the province before the postal code; Australia without a comma", () => {
    assert.deepEqual(
      formatAddressLines({
        line1: "1 Bay St",
        city: "Toronto",
        province: "ON",
        zip: "M5J 2X2",
        country: "Canada",
      }),
      ["1 Bay St", "Toronto, ON M5J 2X2", "Canada"],
    );
    assert.deepEqual(
      formatAddressLines({
        line1: "1 George St",
        city: "Sydney",
        province: "NSW",
        zip: "2000",
        country: "AU",
      }),
      ["1 George St", "Sydney NSW 2000", "AU"],
    );
  });

  it("the United Kingdom puts the postcode on a line of its own", () => {
    assert.deepEqual(
      formatAddressLines({
        line1: "10 Downing St",
        city: "London",
        zip: "SW1A 2AA",
        country: "United Kingdom",
      }),
      ["10 Downing St", "London", "SW1A 2AA", "United Kingdom"],
    );
  });

  it("elsewhere the postal code comes before the city, the region after", () => {
    assert.deepEqual(
      formatAddressLines({ line1: "Vestergade 1", city: "Ærøskøbing", zip: "5970", country: "DK" }),
      ["Vestergade 1", "5970 Ærøskøbing", "DK"],
    );
    assert.deepEqual(
      formatAddressLines({
        line1: "Calle Mayor 1",
        city: "Madrid",
        province: "Madrid",
        zip: "28013",
        country: null,
      }),
      ["Calle Mayor 1", "28013 Madrid", "Madrid"],
    );
  });

  it("missing parts leave no stray comma or blank line", () => {
    assert.deepEqual(formatAddressLines({ city: "Portland", country: "US" }), ["Portland", "US"]);
    assert.deepEqual(formatAddressLines({ province: "OR", zip: "97209", country: "US" }), ["OR 97209", "US"]);
    assert.deepEqual(formatAddressLines({ line1: "  ", city: null, country: "" }), []);
  });

  it("ship-to prints typed text as its lines, else the address, else the location's name", () => {
    const base = { location: { name: "Main warehouse" }, store: { name: "Shop" } };
    assert.deepEqual(shipToLines({ ...base, ship_to_address: " Dock 4\n\n Springfield " }), [
      "Dock 4",
      "Springfield",
    ]);
    assert.deepEqual(
      shipToLines({ ...base, ship_to_address: { ...portland, name: "Warehouse", country_code: "US" } }),
      ["Warehouse", "1 Main St", "Portland, OR 97209", "US"],
    );
    assert.deepEqual(shipToLines({ ...base, ship_to_address: null }), ["Main warehouse"]);
    // The order's own shape: the override in `text`, the location's region as `province_code`.
    const override = { name: null, text: "Dock 4\nSpringfield", city: null, province_code: null };
    assert.deepEqual(shipToLines({ ...base, ship_to_address: override }), ["Dock 4", "Springfield"]);
    const location = { ...portland, province: null, province_code: "OR", country: "United States" };
    assert.deepEqual(shipToLines({ ...base, ship_to_address: location }).slice(-2), [
      "Portland, OR 97209",
      "United States",
    ]);
  });
});

describe("labels", () => {
  it("names the tax once, with its rate", () => {
    assert.equal(taxLabel({ name: null, rate_percent: 0 }), "Tax 0%");
    assert.equal(taxLabel({ name: "VAT", rate_percent: 21 }), "VAT 21%");
    assert.equal(taxLabel({ name: "GST 10%", rate_percent: 10 }), "GST 10%");
    assert.equal(taxLabel({ name: "VAT", rate_percent: 7.5, taxes_included: true }), "VAT 7.5% (included)");
    assert.equal(taxLabel(null), "Tax");
  });

  it("counts in the singular for one", () => {
    assert.equal(countLabel(1, "line"), "1 line");
    assert.equal(countLabel(0, "line"), "0 lines");
    assert.equal(countLabel(1200, "line"), "1,200 lines");
  });
});
