import { staffAdminRoutes } from "../admin/staff-routes.ts";
import { inviteStaff, linkMailJob } from "../domain/staff/index.ts";
import type { Module } from "./module.ts";

/**
 * A store's staff (issue 20, decisions §13): the admin API's staff routes, the job that mails
 * invitation and reset links, and a new store's owner: created with `owner_email`, the owner is
 * invited in the creation's transaction.
 */
export const staffModule: Module = {
  name: "staff",
  adminRoutes: staffAdminRoutes,
  jobs: [linkMailJob],
  async onStoreCreated(ctx, trx, store) {
    if (store.owner_email) await inviteStaff(ctx, trx, store.id, { email: store.owner_email, role: "owner" });
  },
};
