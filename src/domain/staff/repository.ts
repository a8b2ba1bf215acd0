import type { Insertable } from "kysely";
import { sql } from "kysely";
import type { Db } from "../../db/database.ts";
import type { StaffLinksTable } from "../../db/tables/staff.ts";
import type { StaffRow } from "./presenter.ts";

/** The staff tables' SQL; only this module writes them. */

export function staffOfStore(db: Db, storeId: number): Promise<StaffRow[]> {
  return db.selectFrom("staff").selectAll().where("store_id", "=", storeId).orderBy("id").execute();
}

export async function findStaff(db: Db, storeId: number, id: number): Promise<StaffRow | null> {
  const row = await db
    .selectFrom("staff")
    .selectAll()
    .where("store_id", "=", storeId)
    .where("id", "=", id)
    .executeTakeFirst();
  return row ?? null;
}

export async function findStaffById(db: Db, id: number): Promise<StaffRow | null> {
  return (await db.selectFrom("staff").selectAll().where("id", "=", id).executeTakeFirst()) ?? null;
}

/** Every account of this email (one per store), oldest first. */
export function staffByEmail(db: Db, email: string): Promise<StaffRow[]> {
  return db
    .selectFrom("staff")
    .selectAll()
    .where(sql`lower(email)`, "=", email.toLowerCase())
    .orderBy("id")
    .execute();
}

export async function emailTaken(db: Db, storeId: number, email: string): Promise<boolean> {
  const row = await db
    .selectFrom("staff")
    .select("id")
    .where("store_id", "=", storeId)
    .where(sql`lower(email)`, "=", email.toLowerCase())
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertStaff(
  db: Db,
  row: { store_id: number; email: string; name: string; role: string; now: Date },
): Promise<StaffRow> {
  return db
    .insertInto("staff")
    .values({
      store_id: row.store_id,
      email: row.email,
      name: row.name,
      role: row.role,
      password_hash: null,
      invited_at: row.now,
      created_at: row.now,
      updated_at: row.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateStaffRow(
  db: Db,
  id: number,
  set: Partial<Omit<StaffRow, "id" | "store_id" | "created_at">>,
): Promise<StaffRow> {
  return db.updateTable("staff").set(set).where("id", "=", id).returningAll().executeTakeFirstOrThrow();
}

/** Owners that are not disabled, locked so two demotions at once cannot both pass the last-owner rule. */
export async function activeOwnerIds(db: Db, storeId: number): Promise<number[]> {
  const rows = await db
    .selectFrom("staff")
    .select("id")
    .where("store_id", "=", storeId)
    .where("role", "=", "owner")
    .where("disabled_at", "is", null)
    .forUpdate()
    .execute();
  return rows.map((r) => r.id);
}

export async function replaceLink(db: Db, link: Insertable<StaffLinksTable>): Promise<void> {
  if (link.staff_id !== null && link.staff_id !== undefined)
    await db
      .deleteFrom("staff_links")
      .where("staff_id", "=", link.staff_id)
      .where("purpose", "=", link.purpose)
      .where("used_at", "is", null)
      .execute();
  await db.insertInto("staff_links").values(link).execute();
}

export async function findLink(db: Db, tokenHash: string) {
  return (
    (await db.selectFrom("staff_links").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst()) ??
    null
  );
}

/** Marks the link used; false when another request used it first. */
export async function useLink(db: Db, id: number, now: Date): Promise<boolean> {
  const used = await db
    .updateTable("staff_links")
    .set({ used_at: now })
    .where("id", "=", id)
    .where("used_at", "is", null)
    .returning("id")
    .executeTakeFirst();
  return used !== undefined;
}

/** A password set: every other open link of that member is void. */
export async function dropOpenLinks(db: Db, staffId: number): Promise<void> {
  await db.deleteFrom("staff_links").where("staff_id", "=", staffId).where("used_at", "is", null).execute();
}

/**
 * One more failed sign-in, counted in the database so parallel attempts cannot undercount: the
 * `allowed`-th in a row locks the account until `lockUntil` and starts the count again. The lock's end,
 * or null while still unlocked.
 */
export async function recordFailedSignIn(
  db: Db,
  id: number,
  allowed: number,
  now: Date,
  lockUntil: Date,
): Promise<Date | null> {
  const row = await db
    .updateTable("staff")
    .set({
      failed_sign_ins: sql`case when failed_sign_ins + 1 >= ${allowed} then 0 else failed_sign_ins + 1 end`,
      locked_until: sql`case when failed_sign_ins + 1 >= ${allowed} then ${lockUntil}::timestamptz else locked_until end`,
      updated_at: now,
    })
    .where("id", "=", id)
    .returning("locked_until")
    .executeTakeFirst();
  return row?.locked_until ?? null;
}
