import { STAFF_ROLES, type StaffRole, type StaffView } from "../../domain/staff/index.ts";
import { html, type SafeHtml } from "../../html/template.ts";
import { AdminError } from "../admin.ts";
import {
  field,
  formOf,
  idOf,
  loadStore,
  type PageContext,
  redirectTo,
  sendPage,
  takeFlash,
} from "../context.ts";
import { actionButton, csrfField, errorSummary, page, storePath, table, timeHtml } from "../layout.ts";
import { settingsNav } from "../settings-nav.ts";

/**
 * The owner's staff page (the operator sees it too): who works in the store, in which role; invite
 * someone (the invitation goes out by mail), change a role, disable or enable, send an invitation again.
 * Every change is the admin API's staff routes, called as the signed-in user.
 */

const ROLE_HINTS: Record<StaffRole, string> = {
  owner: "everything, settings and staff included",
  purchasing: "suppliers, purchase orders, receiving, payments",
  inventory: "stock adjustments, alert rules and receiving",
  viewer: "sees everything, changes nothing",
};

interface InviteForm {
  email: string;
  name: string;
  role: string;
}

/** The field names of the API in the words of the form. */
const FIELD_LABELS: Record<string, string> = {
  email: "Email",
  name: "Name",
  role: "Role",
  disabled: "Access",
};

function inWords(error: AdminError): AdminError {
  return new AdminError(
    error.status,
    error.code,
    error.details.length > 0 ? "Please correct the highlighted field." : error.message,
    error.details.map((d) => ({ ...d, field: FIELD_LABELS[d.field] ?? d.field })),
  );
}

function stateOf(member: StaffView, timeZone: string): SafeHtml {
  if (member.disabled_at) return html`<span class="badge badge-neutral">Disabled</span>`;
  if (!member.joined_at)
    return html`<span class="badge badge-neutral">Invited</span> <span class="muted">${timeHtml(member.invited_at, timeZone)}</span>`;
  return html`<span class="badge badge-ok">Active</span>`;
}

function roleSelect(id: string, selected: string, label: string): SafeHtml {
  return html`<label class="visually-hidden" for="${id}">${label}</label><select id="${id}" name="role">${STAFF_ROLES.map(
    (r) => html`<option value="${r}"${r === selected ? html` selected` : ""}>${r}</option>`,
  )}</select>`;
}

async function renderStaff(
  ctx: PageContext,
  rawId: unknown,
  values: InviteForm,
  error: AdminError | null,
  status: number,
) {
  const store = await loadStore(ctx, rawId);
  const staff = (await ctx.admin.get<{ data: StaffView[] }>(`/admin/stores/${store.id}/staff`)).data;
  const me = ctx.session.actor.kind === "staff" ? ctx.session.actor.staffId : null;
  const invalid = (name: string) =>
    error?.details.some((d) => d.field === (FIELD_LABELS[name] ?? name))
      ? html` aria-invalid="true" aria-describedby="invite-errors"`
      : "";
  const body = html`${settingsNav(store.id, "staff")}${table(
    `${staff.length} staff member${staff.length === 1 ? "" : "s"}`,
    [
      {
        header: "Email",
        cell: (m) => html`${m.email}${m.id === me ? html` <span class="muted">(you)</span>` : ""}`,
      },
      { header: "Name", cell: (m) => m.name },
      {
        header: "Role",
        cell: (
          m,
        ) => html`<form method="post" action="${storePath(store.id, `/staff/${m.id}`)}" class="inline">
${csrfField(ctx.session)}${roleSelect(`role-${m.id}`, m.role, `Role of ${m.email}`)} <button type="submit">Save role</button></form>`,
      },
      { header: "State", cell: (m) => stateOf(m, store.timezone) },
      { header: "Last sign-in", cell: (m) => timeHtml(m.last_sign_in_at, store.timezone) },
      {
        header: "Actions",
        cell: (m) =>
          html`${actionButton(
            ctx.session,
            storePath(store.id, `/staff/${m.id}`),
            m.disabled_at ? `Enable ${m.email}` : `Disable ${m.email}`,
            { name: "disabled", value: m.disabled_at ? "false" : "true" },
          )}${
            !m.joined_at && !m.disabled_at
              ? actionButton(
                  ctx.session,
                  storePath(store.id, `/staff/${m.id}/invitation`),
                  `Send the invitation to ${m.email} again`,
                )
              : ""
          }`,
      },
    ],
    staff,
    "No staff yet. Invite the first below.",
  )}
<h2 id="invite">Invite someone</h2>
${error ? html`<div id="invite-errors">${errorSummary(error.message, error.details)}</div>` : ""}
<form method="post" action="${storePath(store.id, "/staff")}" class="stack" aria-labelledby="invite">
${csrfField(ctx.session)}
<div class="field"><label for="invite-email">Email</label>
<input type="email" id="invite-email" name="email" required maxlength="254" value="${values.email}"${invalid("email")}></div>
<div class="field"><label for="invite-name">Name <span class="hint">(optional)</span></label>
<input type="text" id="invite-name" name="name" maxlength="200" value="${values.name}"${invalid("name")}></div>
<fieldset><legend>Role</legend>
${STAFF_ROLES.map(
  (r) =>
    html`<label><input type="radio" name="role" value="${r}"${r === values.role ? html` checked` : ""} required> ${r} <span class="hint">${ROLE_HINTS[r]}</span></label>`,
)}
</fieldset>
<div><button type="submit">Send invitation</button></div>
</form>
<p class="hint">An invitation is a link by mail to choose a password; it works once, for 72 hours.</p>`;
  return sendPage(
    ctx.reply,
    page({
      title: "Staff",
      session: ctx.session,
      store,
      tab: "settings",
      body,
      flash: takeFlash(ctx.session),
    }),
    status,
  );
}

export function staffPage(ctx: PageContext, rawId: unknown) {
  return renderStaff(ctx, rawId, { email: "", name: "", role: "viewer" }, null, 200);
}

export async function inviteStaffAction(ctx: PageContext, rawId: unknown) {
  const storeId = idOf(rawId);
  const form = formOf(ctx.request);
  const values = { email: field(form, "email"), name: field(form, "name"), role: field(form, "role") };
  try {
    const created = await ctx.admin.post<{ data: StaffView }>(`/admin/stores/${storeId}/staff`, values);
    ctx.session.flash.push({ kind: "ok", text: `Invitation sent to ${created.data.email}.` });
    return redirectTo(ctx.reply, storePath(storeId, "/staff"));
  } catch (error) {
    if (error instanceof AdminError && error.status === 422)
      return renderStaff(ctx, storeId, values, inWords(error), 422);
    throw error;
  }
}

/** One form per change: `role` (the row's select) or `disabled` (the Disable/Enable button). */
export async function updateStaffAction(ctx: PageContext, rawId: unknown, rawStaffId: unknown) {
  const storeId = idOf(rawId);
  const staffId = idOf(rawStaffId);
  const form = formOf(ctx.request);
  const disabled = field(form, "disabled");
  const body =
    disabled === "true" || disabled === "false"
      ? { disabled: disabled === "true" }
      : { role: field(form, "role") };
  try {
    const updated = await ctx.admin.patch<{ data: StaffView }>(
      `/admin/stores/${storeId}/staff/${staffId}`,
      body,
    );
    const m = updated.data;
    ctx.session.flash.push({
      kind: "ok",
      text:
        "disabled" in body
          ? `${m.email} ${m.disabled_at ? "can no longer sign in" : "can sign in again"}.`
          : `${m.email} is now ${m.role}.`,
    });
  } catch (error) {
    if (!(error instanceof AdminError) || error.status !== 422) throw error;
    const lastOwner = error.details.some((d) => d.code === "last_owner");
    ctx.session.flash.push({
      kind: "error",
      text: lastOwner
        ? "The store needs an owner: make someone else owner first."
        : `Not changed: ${error.details.map((d) => `${FIELD_LABELS[d.field] ?? d.field} ${d.message}`).join("; ") || error.message}`,
    });
  }
  return redirectTo(ctx.reply, storePath(storeId, "/staff"));
}

export async function resendInvitationAction(ctx: PageContext, rawId: unknown, rawStaffId: unknown) {
  const storeId = idOf(rawId);
  const staffId = idOf(rawStaffId);
  const sent = await ctx.admin.post<{ data: StaffView }>(
    `/admin/stores/${storeId}/staff/${staffId}/invitation`,
  );
  ctx.session.flash.push({ kind: "ok", text: `Invitation sent to ${sent.data.email} again.` });
  return redirectTo(ctx.reply, storePath(storeId, "/staff"));
}
