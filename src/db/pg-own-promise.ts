/**
 * A pg client's `query` whose promise form (no callback given: how Kysely and prepared.ts call it) is
 * answered through pg's callback form under a promise of our own. With pg 8's own promise (the one
 * `Client.query` makes) every result it resolves with, rows and all, lived through the young
 * generation's next two collections after the request that read it had ended: each scavenge copied
 * it and then promoted it into the old generation, which filled towards a full collection. Every
 * other store's requests wait while the main thread collects (issue 18 item 2). Measured on Node 20
 * with 2,000 requests reading 200 rows each, one at a time, through a bare HTTP server (the same rows,
 * the same client): pg's promise 108 MB copied by the scavenges, 87 MB promoted, 6 full collections;
 * its callback under our promise 0.8 MB, 0.85 MB, none (docs/history/reliability-journal.md 5b,
 * eighteenth session). Why pg's promise keeps them was not found; the form that does not is used.
 */
type Query = (...args: unknown[]) => unknown;

/** The callback pg answers through: an error, or the result. */
type Answer = (error: Error | null, result?: unknown) => void;

const isFunction = (value: unknown): boolean => typeof value === "function";

export function queryWithOwnPromise(query: Query): Query {
  return (...args: unknown[]) => {
    const [config, values, callback] = args;
    const given = config as { submit?: unknown; callback?: unknown } | null | undefined;
    // A callback given, or a query object of its own (copy-binary.ts): pg's own form, as it was.
    if (
      isFunction(callback) ||
      isFunction(values) ||
      isFunction(given?.submit) ||
      isFunction(given?.callback)
    )
      return query(...args);
    return new Promise((resolve, reject) => {
      const answer: Answer = (error, result) => (error ? reject(error) : resolve(result));
      query(config, values, answer);
    });
  };
}
