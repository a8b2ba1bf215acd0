import type { Statements } from "./index.ts";

/**
 * Storage chosen for how the rows are written and read, not queried:
 *
 * - Event payloads are written once and delivered as written; nothing queries inside them. `json`
 *   keeps the text as given (and the key order of the API's own answer), where `jsonb` parsed and
 *   re-encoded every payload on insert and again on read: an order with a few hundred receipt lines
 *   took twice as long to store.
 * - A stored idempotent response is sealed (AES-GCM, base64url): incompressible, so the default
 *   storage spent time on every write trying to compress it. `external` stores it out of line as is.
 */
export const writeCostsMigration: Statements = [
  `alter table events alter column data type json using data::json`,
  `alter table events alter column extra type json using extra::json`,
  `alter table idempotency_keys alter column response_body set storage external`,
];
