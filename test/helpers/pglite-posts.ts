import type { Worker } from "node:worker_threads";
import type { PGliteThread } from "../../src/db/pglite-thread.ts";

/**
 * Calls `seen` with each message the API's side posts to the embedded database's thread, named by its
 * statement (a BEGIN sent with its first statement reads "begin + <sql>"), then posts it as before.
 */
export function watchPosts(thread: PGliteThread, seen: (statement: string) => void): void {
  const worker = (thread as unknown as { worker: Worker }).worker;
  const post = worker.postMessage.bind(worker);
  worker.postMessage = (message: { sql?: string; begin?: string }) => {
    seen([message.begin, message.sql].filter(Boolean).join(" + "));
    post(message);
  };
}
