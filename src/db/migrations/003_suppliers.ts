import type { Statements } from "./index.ts";

export const suppliersMigration: Statements = [];
