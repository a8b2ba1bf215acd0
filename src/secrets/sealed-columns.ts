/**
 * Every column holding sealed values, so the start-up pass can re-seal and check them all. A new kind
 * of sealed value (platform access tokens) adds its column here.
 */
import { openLegacyResponse, openLegacyWebhookSecret } from "./legacy.ts";

export interface SealedColumn {
  /** What the rows are, for the refusal message. */
  label: string;
  table: string;
  column: string;
  /** The columns naming one row, with their element types for the bulk update. */
  rowKey: ReadonlyArray<readonly [name: string, type: "int" | "text"]>;
  /** The context the value was sealed with (Sealer.seal's second argument), from the row key. */
  context(row: Record<string, unknown>): string;
  /** How rows sealed with the in-database key look, and how to open them (migration only). */
  legacy: { pattern: string; open(stored: string, legacyKey: string, row: Record<string, unknown>): string };
}

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  {
    label: "webhook signing secrets",
    table: "webhooks",
    column: "secret_encrypted",
    rowKey: [
      ["id", "int"],
      ["store_id", "int"],
    ],
    context: (row) => webhookSecretContext(Number(row.store_id)),
    legacy: {
      pattern: "v1.%",
      open: (stored, legacyKey, row) => openLegacyWebhookSecret(stored, legacyKey, Number(row.store_id)),
    },
  },
  {
    label: "stored idempotent responses",
    table: "idempotency_keys",
    column: "response_body",
    rowKey: [
      ["store_id", "int"],
      ["api_key_id", "int"],
      ["key", "text"],
    ],
    context: () => IDEMPOTENT_RESPONSE_CONTEXT,
    legacy: { pattern: "s1.%", open: (stored, legacyKey) => openLegacyResponse(stored, legacyKey) },
  },
];

export function webhookSecretContext(storeId: number): string {
  return `webhook:${storeId}`;
}

export const IDEMPOTENT_RESPONSE_CONTEXT = "idempotency";
