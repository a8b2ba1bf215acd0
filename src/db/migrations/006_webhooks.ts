import type { Statements } from "./index.ts";

export const webhooksMigration: Statements = [];
