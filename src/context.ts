import type { Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import type { Db } from "./db/database.ts";
import type { JobQueue } from "./jobs/queue.ts";
import type { Module } from "./modules/module.ts";
import type { ProcessResources } from "./resources.ts";
import type { Sealer } from "./secrets/sealer.ts";

/**
 * What every service, job and route gets, whatever started the process (API, worker, CLI paths,
 * tests). It belongs to no layer: nothing here knows about HTTP. The API adds its own parts in
 * `src/http/context.ts`.
 */
export interface AppContext {
  config: Config;
  db: Db;
  dbKind: "pglite" | "postgres";
  clock: Clock;
  jobs: JobQueue;
  /** Secret used to sign list cursors (random per installation, kept in service_settings). */
  cursorSecret: string;
  /** Seals what the service stores but must read back (webhook secrets, stored responses), keyed outside the database. */
  sealer: Sealer;
  /** The feature modules this process runs. */
  modules: readonly Module[];
  /** Pools and transports built once per process (the mailer, the webhook sender), closed at shutdown. */
  resources: ProcessResources;
}
