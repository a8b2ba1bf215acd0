/** The owner's "endpoint disabled" email: exact parts, with merchant text escaped in the HTML part. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { disabledEmailBody } from "../../src/domain/webhooks/disabled-email-job.ts";

test("the email names the endpoint, the reason and how to resume; the HTML escapes what merchants wrote", () => {
  const { text, html } = disabledEmailBody({
    id: 7,
    url: "https://hooks.example/in?a=1&b=<2>",
    store_name: `Bob's <b>Tools</b>`,
    when: "2026-11-25T18:00:00.000Z",
    reason: 'failed "8" times',
  });
  assert.equal(
    text,
    [
      "Webhook endpoint 7 of Bob's <b>Tools</b> was disabled at 2026-11-25T18:00:00.000Z.",
      "",
      "URL: https://hooks.example/in?a=1&b=<2>",
      'Reason: failed "8" times',
      "",
      "Events still happen and are kept for 30 days, but nothing is sent to this endpoint until it is",
      're-enabled: PATCH /v2/webhooks/7 with {"status": "active"}. After fixing the receiver,',
      'POST /v2/webhooks/7/redeliver with {"since": "<time>"} sends what it missed.',
    ].join("\n"),
  );
  assert.equal(
    html,
    [
      "<p>Webhook endpoint 7 of Bob&#39;s &lt;b&gt;Tools&lt;/b&gt; was disabled at 2026-11-25T18:00:00.000Z.</p>",
      "<p>URL: <code>https://hooks.example/in?a=1&amp;b=&lt;2&gt;</code><br>Reason: failed &quot;8&quot; times</p>",
      "<p>Events still happen and are kept for 30 days, but nothing is sent to this endpoint until it is",
      're-enabled with <code>PATCH /v2/webhooks/7</code> and <code>{"status": "active"}</code>.',
      "After fixing the receiver, <code>POST /v2/webhooks/7/redeliver</code> with",
      '<code>{"since": "&lt;time&gt;"}</code> sends what it missed.</p>',
    ].join("\n"),
  );
});
