import type { ColumnType, Generated } from "kysely";

/** A timestamp column: written as a Date (from the injected clock), read back as a Date. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A timestamp column with a database default: may be left out on insert. */
export type GeneratedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** A `numeric` column: read as a decimal string, written as a string (never a float). */
export type Numeric = ColumnType<string, string, string>;
/** A `date` column: `YYYY-MM-DD` both ways. */
export type DateOnly = string;
/** A jsonb column: written as a JSON string. */
export type Json<T = unknown> = ColumnType<T, string, string>;
/** A jsonb column with a database default. */
export type GeneratedJson<T = unknown> = ColumnType<T, string | undefined, string>;

export interface StoresTable {
  id: Generated<number>;
  name: string;
  domain: string;
  currency: string;
  timezone: string;
  owner_email: string | null;
  platform: Generated<string>;
  api_access: Generated<boolean>;
  purchase_order_prefix: Generated<string>;
  stock_adjustment_prefix: Generated<string>;
  next_purchase_order_number: Generated<number>;
  next_stock_adjustment_number: Generated<number>;
  rate_per_key_per_minute: Generated<number>;
  rate_per_store_per_minute: Generated<number>;
  rate_writes_per_store_per_minute: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApiKeysTable {
  id: Generated<number>;
  store_id: number;
  name: string;
  prefix: string;
  key_hash: string;
  scopes: string[];
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
  last_used_at: Timestamp | null;
  created_at: Timestamp;
}

export interface RequestLogTable {
  id: Generated<number>;
  store_id: number;
  key_id: number | null;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  idempotency_key: string | null;
  request_id: string;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  store_id: number;
  api_key_id: number;
  key: string;
  request_hash: string;
  state: "in_progress" | "done";
  status_code: number | null;
  response_body: string | null;
  locked_at: Timestamp;
  created_at: Timestamp;
}

export interface EventsTable {
  seq: Generated<number>;
  id: string;
  store_id: number;
  name: string;
  subject_type: string;
  subject_id: number;
  data: Json<Record<string, unknown>>;
  /** Fields carried beside `data` in the envelope (e.g. `receipt` for receipt_recorded). */
  extra: Json<Record<string, unknown>> | null;
  occurred_at: Timestamp;
}

export interface JobsTable {
  id: Generated<number>;
  store_id: number | null;
  type: string;
  payload: Json<Record<string, unknown>>;
  state: "queued" | "running" | "done" | "failed";
  attempts: number;
  max_attempts: number;
  run_at: Timestamp;
  locked_by: string | null;
  locked_until: Timestamp | null;
  last_error: string | null;
  dedupe_key: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  finished_at: Timestamp | null;
}

export interface ServiceSettingsTable {
  key: string;
  value: string;
}

export interface FoundationTables {
  stores: StoresTable;
  api_keys: ApiKeysTable;
  request_log: RequestLogTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  jobs: JobsTable;
  service_settings: ServiceSettingsTable;
}
