import type { Statements } from "./index.ts";

export const catalogMigration: Statements = [];
