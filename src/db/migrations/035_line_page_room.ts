import type { Statements } from "./index.ts";

/**
 * Room on the line tables' pages for the updates that follow their inserts (issue 22 item 1, the
 * write path's bytes). A receipt updates every line it books (received quantities), an apply every
 * line of its adjustment (the quantities before and after). No index covers those columns, so the
 * updates could be HOT (no new index entries) but for full pages: with the default fillfactor of 100
 * an updated row moved to another page and every index of the table got a new entry. Measured with
 * bench/write-bytes.ts (docs/history/performance-journal.md, "The write path in bytes"): a 50-line receipt
 * 101.8 -> 94.3 KB of WAL, a 200-line apply 285.9 -> 228.1 KB. Order lines are updated by each receipt and
 * pruned between them, so 30 % room keeps most updates on their page; an adjustment's lines are
 * updated once, all together, so each page keeps room for a copy of all its rows. Applies to pages
 * filled from now on; nothing is rewritten.
 */
export const linePageRoomMigration: Statements = [
  "alter table purchase_order_lines set (fillfactor = 70)",
  "alter table stock_adjustment_lines set (fillfactor = 50)",
];
