import type { Generated } from "kysely";
import type { Timestamp } from "./foundation.ts";

/** A store's staff member (012_staff). */
export interface StaffTable {
  id: Generated<number>;
  store_id: number;
  email: string;
  name: string;
  role: string;
  /** scrypt hash (`scrypt$N$r$p$salt$hash`); null until the invitation is accepted. */
  password_hash: string | null;
  invited_at: Timestamp;
  joined_at: Timestamp | null;
  last_sign_in_at: Timestamp | null;
  disabled_at: Timestamp | null;
  /** Failed sign-ins in a row; at 10 the account locks until `locked_until`. */
  failed_sign_ins: Generated<number>;
  locked_until: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A one-time link's secret, by hash: an invitation, a password reset, or a new store's owner claim. */
export interface StaffLinksTable {
  id: Generated<number>;
  store_id: number;
  /** null for an owner claim (the store has no staff yet). */
  staff_id: number | null;
  purpose: "invitation" | "reset" | "owner_claim";
  token_hash: string;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  created_at: Timestamp;
}

export interface StaffTables {
  staff: StaffTable;
  staff_links: StaffLinksTable;
}
