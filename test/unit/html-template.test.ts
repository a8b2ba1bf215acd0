/**
 * The safe HTML template shared by the console and every mail: interpolated values are escaped unless
 * they are fragments the template itself produced.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { html, lines, raw } from "../../src/html/template.ts";

describe("html template", () => {
  test("escapes every interpolated value, including quotes and backticks", () => {
    const value = `<script>alert("x")</script> & 'y' \`z\``;
    assert.equal(
      html`<p title="${value}">${value}</p>`.value,
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39; &#96;z&#96;">' +
        "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39; &#96;z&#96;</p>",
    );
  });

  test("nested templates, raw constants and arrays are inserted as they are; empty values vanish", () => {
    const items = ["a&b", "<c>"].map((t) => html`<li>${t}</li>`);
    assert.equal(
      html`<ul>${items}</ul>${raw("<hr>")}${null}${undefined}${false}${0}`.value,
      "<ul><li>a&amp;b</li><li>&lt;c&gt;</li></ul><hr>0",
    );
  });

  test("lines are escaped one by one and separated by <br>", () => {
    assert.equal(html`<p>${lines(["Total: 5 < 6", "R&D"])}</p>`.value, "<p>Total: 5 &lt; 6<br>R&amp;D</p>");
    assert.equal(lines([]).value, "");
  });
});
