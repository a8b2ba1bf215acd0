import type { Statements } from "./index.ts";

export const stockAdjustmentsMigration: Statements = [];
