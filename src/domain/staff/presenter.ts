import type { Selectable } from "kysely";
import type { StaffTable } from "../../db/tables/staff.ts";
import type { StaffRole } from "./roles.ts";

export type StaffRow = Selectable<StaffTable>;

/** A staff member as the admin API shows one (docs/decisions.md §13). */
export interface StaffView {
  id: number;
  email: string;
  name: string;
  role: StaffRole;
  invited_at: string;
  joined_at: string | null;
  last_sign_in_at: string | null;
  disabled_at: string | null;
}

export function presentStaff(row: StaffRow): StaffView {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role as StaffRole,
    invited_at: row.invited_at.toISOString(),
    joined_at: row.joined_at?.toISOString() ?? null,
    last_sign_in_at: row.last_sign_in_at?.toISOString() ?? null,
    disabled_at: row.disabled_at?.toISOString() ?? null,
  };
}
