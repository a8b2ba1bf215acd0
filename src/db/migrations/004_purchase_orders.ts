import type { Statements } from "./index.ts";

export const purchaseOrdersMigration: Statements = [];
