import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { renderRecord, renderTable } from "../../src/cli/output.ts";
import { wrap } from "../../src/cli/table-fit.ts";

interface Row {
  id: number;
  name: string;
  url: string;
  status: string;
}
const columns = [
  { header: "ID", value: "id" as const, align: "right" as const },
  { header: "NAME", value: "name" as const },
  { header: "URL", value: "url" as const },
  { header: "STATUS", value: "status" as const },
];
const rows: Row[] = [
  { id: 7, name: "Orders feed", url: "https://hooks.example.com/stockroom/orders/receive", status: "active" },
  { id: 12, name: "Stock", url: "https://x.example/s", status: "paused" },
];

describe("CLI tables fit the terminal", () => {
  it("a table that fits is printed as it always was, in its own column order", () => {
    assert.equal(
      renderTable(rows, columns, 200),
      [
        "ID  NAME         URL                                                 STATUS",
        "--  -----------  --------------------------------------------------  ------",
        " 7  Orders feed  https://hooks.example.com/stockroom/orders/receive  active",
        "12  Stock        https://x.example/s                                 paused",
        "",
      ].join("\n"),
    );
  });

  it("a table too wide moves its widest column last and wraps it within the width", () => {
    assert.equal(
      renderTable(rows, columns, 50),
      [
        "ID  NAME         STATUS  URL",
        "--  -----------  ------  -------------------------",
        " 7  Orders feed  active  https://hooks.example.com",
        "                         /stockroom/orders/receive",
        "12  Stock        paused  https://x.example/s",
        "",
      ].join("\n"),
    );
  });

  it("when the other columns alone leave no room, the widest of them is cut short with an ellipsis", () => {
    const long = [
      {
        id: 1,
        name: "A supplier with a remarkably long name",
        url: "https://a.example/hook/path/that/is/long",
        status: "active",
      },
    ];
    const out = renderTable(long, columns, 40);
    for (const line of out.trimEnd().split("\n"))
      assert.ok(line.length <= 40, `"${line}" is ${line.length} wide`);
    assert.match(out, /A supplier wi…/);
    assert.match(out.split("\n")[0], /URL$/);
  });

  it("every line fits and no character of the wrapped column is lost (property)", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "b", " ", "-", "é"), maxLength: 60 });
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: fc.nat(99999), name: text, url: text, status: text }), { maxLength: 6 }),
        fc.integer({ min: 48, max: 120 }),
        (generated, width) => {
          const clean = generated.map((r) => ({
            ...r,
            name: r.name.trim(),
            url: r.url.trim(),
            status: r.status.trim(),
          }));
          const out = renderTable(clean, columns, width);
          for (const line of out.trimEnd().split("\n")) assert.ok([...line].length <= width, line);
        },
      ),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.integer({ min: 1, max: 40 }), (value, width) => {
        const lines = wrap(value, width);
        for (const line of lines) assert.ok([...line].length <= width);
        assert.equal(lines.join("").replace(/ /g, ""), value.replace(/ /g, ""));
      }),
    );
  });

  it("a record's long value wraps under itself", () => {
    const record = { name: "Shop", description: "a long value that needs two lines here" };
    assert.equal(
      renderRecord(record, 40),
      ["name:        Shop", "description: a long value that needs two", "             lines here", ""].join(
        "\n",
      ),
    );
    assert.equal(renderRecord(record, 200), `name:        Shop\ndescription: ${record.description}\n`);
  });
});
