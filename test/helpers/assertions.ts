import assert from "node:assert/strict";
import type { HttpResult } from "./app.ts";

/** The response has this status; on a mismatch the message shows the body, which says why. */
export function expectStatus(res: HttpResult, status: number): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
}

/** A field problem as `[field, code]` or `{ field, code }` (both spellings are in use). */
export type Detail = readonly [string, string] | { readonly field: string; readonly code: string };

const asPair = (d: Detail): [string, string] => ("field" in d ? [d.field, d.code] : [d[0], d[1]]);
const byFieldThenCode = (a: [string, string], b: [string, string]) =>
  a[0].localeCompare(b[0]) || a[1].localeCompare(b[1]);

/** A 422 `validation_failed` whose details are exactly these (field, code) pairs, in any order. */
export function expectDetails(res: HttpResult, details: readonly Detail[]): void {
  expectStatus(res, 422);
  assert.equal(res.body.error.code, "validation_failed");
  const got = (res.body.error.details as { field: string; code: string }[]).map(asPair);
  assert.deepEqual(got.sort(byFieldThenCode), details.map(asPair).sort(byFieldThenCode));
}

/** A 422 `invalid_transition` naming the current state (as a word) and every one of `words`. */
export function expectInvalidTransition(res: HttpResult, state: string, ...words: string[]): void {
  expectStatus(res, 422);
  assert.equal(res.body.error.code, "invalid_transition");
  assert.match(res.body.error.message, new RegExp(`\\b${state}\\b`));
  for (const w of words) assert.ok(res.body.error.message.includes(w), res.body.error.message);
}

/** An error response with this status and error code. */
export function expectError(res: HttpResult, status: number, code: string): void {
  expectStatus(res, status);
  assert.equal(res.body.error.code, code, JSON.stringify(res.body));
}
