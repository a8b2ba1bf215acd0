// A module of its own, importing nothing: the embedded database's thread (pglite-statements.ts) reads
// it, and that thread has no use for Kysely, which bulk.ts needs.

/**
 * On the embedded database (pglite-statements.ts), a run with an array parameter longer than this is
 * planned with its values, as PostgreSQL's server plans the `pg` driver's unnamed statements. A kept statement's generic plan (from its sixth run)
 * knows neither the array's length nor its elements: it estimates 10, and `id = any($2)` left as a
 * filter compares each row with every element in turn, where a plan made with the values hashes them.
 * A batched platform push passes up to 6,400 movement ids; checked one by one against the store's
 * few thousand unacknowledged movements in a burst of applies, one such statement held the one
 * connection for 1.0-2.3 s (docs/history/performance-journal.md, "PGlite writes per request"). Planning anew
 * costs ~1 ms, nothing beside a statement over thousands of values; the API's own arrays (a 200-line
 * apply's columns) stay under it and keep their prepared statement.
 */
export const PLANNED_FROM_ARRAY_LENGTH = 1000;
