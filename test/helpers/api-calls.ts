import type { TestApp } from "./app.ts";

/**
 * The API calls the console makes in process (store-api.ts injects them into the app) while `action`
 * runs: their paths with query, in order, for tests that bound how many calls a page costs. The app's
 * `inject` is wrapped for the duration; a console route reaches it through its encapsulated instance,
 * which inherits it.
 */
export async function apiCallsDuring<T>(
  t: TestApp,
  action: () => Promise<T>,
): Promise<{ result: T; calls: string[] }> {
  const app = t.runtime.app;
  const original = app.inject;
  const calls: string[] = [];
  const counting = ((options: unknown, ...rest: unknown[]) => {
    const url = typeof options === "object" && options !== null ? (options as { url?: unknown }).url : null;
    if (typeof url === "string" && url.startsWith("/v2/")) calls.push(url);
    return (original as (...args: unknown[]) => unknown).call(app, options, ...rest);
  }) as typeof app.inject;
  app.inject = counting;
  try {
    return { result: await action(), calls };
  } finally {
    app.inject = original;
  }
}
