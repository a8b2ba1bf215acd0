/**
 * For test spies on pg's `Client.query`: the service's statements are answered through pg's callback
 * (src/db/pg-own-promise.ts), others through pg's promise. Runs `query` with `args` and calls `seen`
 * with the result, whichever form the call took, before the caller gets it.
 */
export function queryAndSee<R>(
  query: (...args: unknown[]) => unknown,
  self: unknown,
  args: unknown[],
  seen: (result: R) => void,
): unknown {
  const last = args.at(-1);
  if (typeof last === "function") {
    const callback = last as (error: Error | null, result?: R) => unknown;
    return query.apply(self, [
      ...args.slice(0, -1),
      (error: Error | null, result?: R) => {
        if (!error) seen(result as R);
        return callback(error, result);
      },
    ]);
  }
  const returned = query.apply(self, args);
  if (returned && typeof (returned as Promise<R>).then === "function")
    (returned as Promise<R>).then(seen, () => {});
  return returned;
}
