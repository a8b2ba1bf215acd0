/**
 * The admin API's JSON as its clients (the CLI and the console) read it: one definition of each shape
 * instead of a copy in every client.
 */
export type { Page } from "../db/keyset-paging.ts";

/** An API key as `GET /admin/stores/{id}/keys` lists it (the secret is never there). */
export interface AdminKeyView {
  id: number;
  name: string;
  prefix: string;
  scopes: string[];
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

/** A row of `GET /admin/stores/{id}/request_log`. */
export interface RequestLogView {
  id: number;
  key_id: number | null;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  idempotency_key: string | null;
  request_id: string;
  created_at: string;
}
