import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { AppError, DetailCollector, notFound } from "../errors.ts";
import { queueLinkMail } from "./link-mail.ts";
import { presentStaff, type StaffView } from "./presenter.ts";
import {
  activeOwnerIds,
  emailTaken,
  findStaff,
  insertStaff,
  staffOfStore,
  updateStaffRow,
} from "./repository.ts";
import { isStaffRole, STAFF_ROLES } from "./roles.ts";

/** A store's staff: listed, invited (a one-time link by mail), their role changed, disabled. */

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_EMAIL = 254;
const MAX_NAME = 200;

export interface InviteInput {
  email: string;
  name?: string;
  role: string;
}

export interface StaffPatch {
  role?: string;
  disabled?: boolean;
}

export async function listStaff(db: Db, storeId: number): Promise<StaffView[]> {
  return (await staffOfStore(db, storeId)).map(presentStaff);
}

/** Adds a member and queues their invitation mail, in the caller's transaction. */
export async function inviteStaff(ctx: AppContext, trx: Db, storeId: number, input: InviteInput) {
  const email = input.email.trim();
  const name = (input.name ?? "").trim();
  const problems = new DetailCollector();
  if (email.length > MAX_EMAIL || !EMAIL.test(email))
    problems.add("email", "invalid_value", "is not an email address");
  else if (await emailTaken(trx, storeId, email))
    problems.add("email", "already_exists", "is already a staff member of this store");
  if (name.length > MAX_NAME) problems.add("name", "too_long", `is longer than ${MAX_NAME} characters`);
  if (!isStaffRole(input.role))
    problems.add("role", "invalid_value", `must be one of ${STAFF_ROLES.join(", ")}`);
  problems.throwIfAny();
  const row = await insertStaff(trx, {
    store_id: storeId,
    email,
    name,
    role: input.role,
    now: ctx.clock.now(),
  });
  await queueLinkMail(ctx, trx, row.id, "invitation");
  return presentStaff(row);
}

/**
 * PATCH a member: role, disabled (true sets disabled_at, false clears it). The store keeps at least
 * one owner who is not disabled.
 */
export async function updateStaff(
  ctx: AppContext,
  trx: Db,
  storeId: number,
  staffId: number,
  patch: StaffPatch,
): Promise<StaffView> {
  const problems = new DetailCollector();
  if (patch.role !== undefined && !isStaffRole(patch.role))
    problems.add("role", "invalid_value", `must be one of ${STAFF_ROLES.join(", ")}`);
  problems.throwIfAny();
  const owners = await activeOwnerIds(trx, storeId);
  const row = await findStaff(trx, storeId, staffId);
  if (!row) throw notFound("staff member");
  const stillOwner =
    (patch.role ?? row.role) === "owner" && (patch.disabled ?? row.disabled_at !== null) === false;
  if (owners.length === 1 && owners[0] === row.id && !stillOwner) {
    const field = patch.role !== undefined && patch.role !== "owner" ? "role" : "disabled";
    throw new AppError("validation_failed", `${field}: the store would have no owner left`, [
      { field, code: "last_owner", message: "the store would have no owner left" },
    ]);
  }
  const now = ctx.clock.now();
  const updated = await updateStaffRow(trx, row.id, {
    ...(patch.role !== undefined && { role: patch.role }),
    ...(patch.disabled !== undefined && {
      disabled_at: patch.disabled ? (row.disabled_at ?? now) : null,
    }),
    updated_at: now,
  });
  return presentStaff(updated);
}

/** Sends the invitation again (a new link; the old one stops working) to a member who has not joined. */
export async function resendInvitation(ctx: AppContext, trx: Db, storeId: number, staffId: number) {
  const row = await findStaff(trx, storeId, staffId);
  if (!row) throw notFound("staff member");
  if (row.joined_at !== null || row.disabled_at !== null)
    throw new AppError(
      "invalid_transition",
      `The staff member is ${row.disabled_at ? "disabled" : "joined"}.`,
    );
  await queueLinkMail(ctx, trx, row.id, "invitation");
  return presentStaff(row);
}
