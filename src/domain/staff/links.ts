import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/database.ts";
import { AppError, DetailCollector } from "../errors.ts";
import { hashSecret } from "../secrets.ts";
import { getStore } from "../stores/index.ts";
import { newLinkSecret } from "./link-mail.ts";
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./passwords.ts";
import type { StaffRow } from "./presenter.ts";
import {
  dropOpenLinks,
  findLink,
  findStaffById,
  replaceLink,
  staffOfStore,
  updateStaffRow,
  useLink,
} from "./repository.ts";
import { inviteStaff } from "./service.ts";

/** Following a one-time link: what it is for, setting a password with it, a new store's owner claim. */

const OWNER_CLAIM_TTL_MS = 24 * 60 * 60 * 1000;

export interface LinkInfo {
  purpose: "invitation" | "reset";
  email: string;
  storeName: string;
}

async function openLink(db: Db, now: Date, token: string, purposes: readonly string[]) {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const link = await findLink(db, hashSecret(token));
  if (!link || link.used_at !== null || link.expires_at.getTime() <= now.getTime()) return null;
  return purposes.includes(link.purpose) ? link : null;
}

/** The invitation or reset a link is, or null (unknown, used, expired, or its member disabled). */
export async function passwordLinkInfo(ctx: AppContext, token: string): Promise<LinkInfo | null> {
  const link = await openLink(ctx.db, ctx.clock.now(), token, ["invitation", "reset"]);
  const staff = link?.staff_id ? await findStaffById(ctx.db, link.staff_id) : null;
  if (!link || !staff || staff.disabled_at !== null) return null;
  const store = await getStore(ctx.db, staff.store_id);
  return { purpose: link.purpose as LinkInfo["purpose"], email: staff.email, storeName: store.name };
}

export function checkPassword(password: string, problems: DetailCollector, field = "password"): void {
  if ([...password].length < MIN_PASSWORD_LENGTH)
    problems.add(field, "too_short", `must be at least ${MIN_PASSWORD_LENGTH} characters`);
  else if ([...password].length > MAX_PASSWORD_LENGTH)
    problems.add(field, "too_long", `must be at most ${MAX_PASSWORD_LENGTH} characters`);
}

/**
 * Sets the member's password with an invitation or reset link and uses the link up: the member has
 * joined, any lock is lifted, every other open link of theirs stops working. 422 on `password` when it
 * is too short; 404 when the link is unknown, used or expired.
 */
export async function setPasswordWithLink(
  ctx: AppContext,
  token: string,
  password: string,
): Promise<StaffRow> {
  const problems = new DetailCollector();
  checkPassword(password, problems);
  problems.throwIfAny();
  const passwordHash = await hashPassword(password);
  return ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock.now();
    const link = await openLink(trx, now, token, ["invitation", "reset"]);
    const staff = link?.staff_id ? await findStaffById(trx, link.staff_id) : null;
    if (!link || !staff || staff.disabled_at !== null || !(await useLink(trx, link.id, now)))
      throw new AppError("not_found", "This link is unknown, already used or expired.");
    await dropOpenLinks(trx, staff.id);
    return updateStaffRow(trx, staff.id, {
      password_hash: passwordHash,
      joined_at: staff.joined_at ?? now,
      failed_sign_ins: 0,
      locked_until: null,
      updated_at: now,
    });
  });
}

/**
 * A store made without an owner (a Shopify install: the offline token names no user) hands the
 * installing browser this path; its page asks for the owner's email and sends the invitation. The
 * link works once, for 24 hours, and only while the store has no staff.
 */
export async function ownerClaimPath(ctx: AppContext, db: Db, storeId: number): Promise<string> {
  const now = ctx.clock.now();
  const { token, hash } = newLinkSecret();
  await replaceLink(db, {
    store_id: storeId,
    staff_id: null,
    purpose: "owner_claim",
    token_hash: hash,
    expires_at: new Date(now.getTime() + OWNER_CLAIM_TTL_MS),
    created_at: now,
  });
  return `/console/welcome/${token}`;
}

/**
 * Where a browser that just installed the app lands (shop OAuth's callback): the owner claim page while
 * the store has no staff yet, else the store's console (its staff sign in there).
 */
export async function installLandingPath(ctx: AppContext, storeId: number): Promise<string> {
  if ((await staffOfStore(ctx.db, storeId)).length > 0) return `/console/stores/${storeId}`;
  return ownerClaimPath(ctx, ctx.db, storeId);
}

/** The store an owner claim link is for, while it is open and the store has no staff; else null. */
export async function ownerClaimStore(
  ctx: AppContext,
  token: string,
): Promise<{ id: number; name: string } | null> {
  const link = await openLink(ctx.db, ctx.clock.now(), token, ["owner_claim"]);
  if (!link || (await staffOfStore(ctx.db, link.store_id)).length > 0) return null;
  const store = await getStore(ctx.db, link.store_id);
  return { id: store.id, name: store.name };
}

/** Invites the owner named on a claim page and uses the claim up (422 on `email` as an invitation would). */
export async function claimOwner(ctx: AppContext, token: string, email: string) {
  return ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock.now();
    const link = await openLink(trx, now, token, ["owner_claim"]);
    if (!link || (await staffOfStore(trx, link.store_id)).length > 0 || !(await useLink(trx, link.id, now)))
      throw new AppError("not_found", "This link is unknown, already used or expired.");
    return inviteStaff(ctx, trx, link.store_id, { email, role: "owner" });
  });
}
