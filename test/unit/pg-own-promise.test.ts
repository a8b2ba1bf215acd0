/**
 * A pg client's promise form answered through its callback form under our own promise
 * (src/db/pg-own-promise.ts): what pg's own promise resolves with lived through the young
 * generation's collections. The query function below stands in for pg's `Client.query`: it answers a
 * callback if given one and otherwise makes a promise of its own, which the wrapper must never use.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { queryWithOwnPromise } from "../../src/db/pg-own-promise.ts";

type Callback = (error: Error | null, result?: unknown) => void;

/** A stand-in for pg's query: records how it was called, answers `result` or fails with `error`. */
function fakeQuery(outcome: { result?: unknown; error?: Error }) {
  const calls: Array<{ args: unknown[]; form: "callback" | "promise" }> = [];
  const query = (...args: unknown[]) => {
    const callback = [...args].reverse().find((a) => typeof a === "function") as Callback | undefined;
    const config = args[0] as { submit?: unknown; callback?: Callback };
    const answer = callback ?? config?.callback;
    if (typeof config?.submit === "function" || answer) {
      calls.push({ args, form: "callback" });
      setImmediate(() => answer?.(outcome.error ?? null, outcome.result));
      return typeof config?.submit === "function" ? config : undefined;
    }
    calls.push({ args, form: "promise" });
    return outcome.error ? Promise.reject(outcome.error) : Promise.resolve(outcome.result);
  };
  return { query, calls };
}

test("the promise form is answered through pg's callback form, with the same result", async () => {
  const result = { rows: [{ id: 1 }] };
  const { query, calls } = fakeQuery({ result });
  const wrapped = queryWithOwnPromise(query);
  assert.equal(await wrapped("select $1", [1]), result);
  assert.equal(await wrapped({ name: "q", text: "select 1", values: [] }), result);
  assert.equal(await wrapped("select 1"), result);
  assert.deepEqual(
    calls.map((c) => c.form),
    ["callback", "callback", "callback"],
  );
  assert.deepEqual(calls[0].args.slice(0, 2), ["select $1", [1]]);
  assert.deepEqual(calls[1].args[0], { name: "q", text: "select 1", values: [] });
});

test("a statement's error rejects our promise with pg's error itself", async () => {
  const error = Object.assign(new Error("duplicate key"), { code: "23505" });
  const { query } = fakeQuery({ error });
  await assert.rejects(
    queryWithOwnPromise(query)("insert …", []) as Promise<unknown>,
    (e: unknown) => e === error,
  );
});

test("a callback given, or a query object of its own, goes to pg as it was", async () => {
  const { query, calls } = fakeQuery({ result: "r" });
  const wrapped = queryWithOwnPromise(query);
  const answered = await new Promise((resolve) =>
    wrapped("select 1", [], (_e: unknown, r: unknown) => resolve(r)),
  );
  assert.equal(answered, "r");
  const submittable = { submit() {}, callback: () => {} };
  assert.equal(wrapped(submittable), submittable);
  assert.equal(calls.length, 2);
  assert.deepEqual(calls[0].args.length, 3);
  assert.equal(calls[1].args.length, 1);
});
