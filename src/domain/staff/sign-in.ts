import type { AppContext } from "../../context.ts";
import { queueLinkMail } from "./link-mail.ts";
import { verifyPassword } from "./passwords.ts";
import type { StaffRow } from "./presenter.ts";
import { findStaffById, recordFailedSignIn, staffByEmail, updateStaffRow } from "./repository.ts";

/**
 * Staff sign-in by email and password. Ten failed sign-ins in a row lock the account for 15 minutes
 * (attempts while locked are refused without checking the password and do not count). An email can
 * belong to several stores (one account each): every account whose password matches is signed in to,
 * and the console lets the user pick the store.
 */
export const FAILED_SIGN_INS_ALLOWED = 10;
export const LOCK_MS = 15 * 60 * 1000;

export type SignInResult =
  | { kind: "ok"; accounts: StaffRow[] }
  | { kind: "locked"; until: Date }
  | { kind: "wrong" };

export async function signIn(ctx: AppContext, email: string, password: string): Promise<SignInResult> {
  const now = ctx.clock.now();
  const accounts = (await staffByEmail(ctx.db, email.trim())).filter(
    (s) => s.disabled_at === null && s.password_hash !== null,
  );
  if (accounts.length === 0) {
    await verifyPassword(password, null); // the same time as a real check: no account list by timing
    return { kind: "wrong" };
  }
  const matched: StaffRow[] = [];
  let lockedUntil: Date | null = null;
  for (const account of accounts) {
    if (account.locked_until !== null && account.locked_until.getTime() > now.getTime()) {
      const until: Date = account.locked_until;
      if (lockedUntil === null || until.getTime() > lockedUntil.getTime()) lockedUntil = until;
      continue;
    }
    if (await verifyPassword(password, account.password_hash)) {
      matched.push(
        await updateStaffRow(ctx.db, account.id, {
          failed_sign_ins: 0,
          locked_until: null,
          last_sign_in_at: now,
          updated_at: now,
        }),
      );
    } else {
      const until = await recordFailedSignIn(
        ctx.db,
        account.id,
        FAILED_SIGN_INS_ALLOWED,
        now,
        new Date(now.getTime() + LOCK_MS),
      );
      if (until) lockedUntil = until;
    }
  }
  if (matched.length > 0) return { kind: "ok", accounts: matched };
  return lockedUntil ? { kind: "locked", until: lockedUntil } : { kind: "wrong" };
}

/** The member as they are now (role, disabled): the console checks it on every request. */
export function currentStaff(ctx: AppContext, staffId: number): Promise<StaffRow | null> {
  return findStaffById(ctx.db, staffId);
}

/**
 * "Forgot password": queues a reset mail to every joined, enabled account of this email. The answer
 * is the same whether or not there is one.
 */
export async function requestPasswordReset(ctx: AppContext, email: string): Promise<void> {
  const accounts = (await staffByEmail(ctx.db, email.trim())).filter(
    (s) => s.disabled_at === null && s.password_hash !== null,
  );
  if (accounts.length === 0) return;
  await ctx.db.transaction().execute(async (trx) => {
    for (const account of accounts) await queueLinkMail(ctx, trx, account.id, "reset");
  });
}
