import type { Permission } from "../../domain/staff/index.ts";
import type { PageContext } from "../context.ts";
import { createKeyAction, keysPage, requestLogPage, revokeKeyAction } from "./keys.ts";
import { apiAccessAction, saveNumberingAction, settingsPage } from "./settings.ts";
import { locationsPage, locationVisibilityAction } from "./settings-locations.ts";
import {
  exchangeRatesPage,
  saveExchangeRatesAction,
  saveTaxRatesAction,
  taxRatesPage,
} from "./settings-rates.ts";
import { retrySyncAction, syncPage } from "./settings-sync.ts";
import { inviteStaffAction, resendInvitationAction, staffPage, updateStaffAction } from "./staff.ts";
import {
  createWebhookAction,
  deleteWebhookAction,
  redeliverAction,
  testWebhookAction,
  webhookPage,
  webhookStatusAction,
  webhooksPage,
} from "./webhooks.ts";

type Handler = (c: PageContext, p: Record<string, string>) => Promise<unknown>;
type SettingsRouteAdder = (url: string, handler: Handler, needs: Permission) => unknown;

/**
 * The store's settings area, every page and action of it for the owner (the `settings` permission)
 * and the operator only: a staff member of another role gets 403 and sees no Settings tab.
 */
export function settingsRoutes(get: SettingsRouteAdder, post: SettingsRouteAdder): void {
  const s = "settings" as const;
  get("/stores/:id/settings", (c, p) => settingsPage(c, p.id), s);
  post("/stores/:id/settings/numbering", (c, p) => saveNumberingAction(c, p.id), s);
  post("/stores/:id/api_access", (c, p) => apiAccessAction(c, p.id), s);
  get("/stores/:id/settings/tax_rates", (c, p) => taxRatesPage(c, p.id), s);
  post("/stores/:id/settings/tax_rates", (c, p) => saveTaxRatesAction(c, p.id), s);
  get("/stores/:id/settings/exchange_rates", (c, p) => exchangeRatesPage(c, p.id), s);
  post("/stores/:id/settings/exchange_rates", (c, p) => saveExchangeRatesAction(c, p.id), s);
  get("/stores/:id/settings/locations", (c, p) => locationsPage(c, p.id), s);
  post(
    "/stores/:id/settings/locations/:location_id",
    (c, p) => locationVisibilityAction(c, p.id, p.location_id),
    s,
  );
  get("/stores/:id/keys", (c, p) => keysPage(c, p.id), s);
  post("/stores/:id/keys", (c, p) => createKeyAction(c, p.id), s);
  post("/stores/:id/keys/:key_id/revoke", (c, p) => revokeKeyAction(c, p.id, p.key_id), s);
  get("/stores/:id/request_log", (c, p) => requestLogPage(c, p.id), s);
  get("/stores/:id/webhooks", (c) => webhooksPage(c), s);
  post("/stores/:id/webhooks", (c) => createWebhookAction(c), s);
  get("/stores/:id/webhooks/:webhook_id", (c, p) => webhookPage(c, p.webhook_id), s);
  post("/stores/:id/webhooks/:webhook_id/status", (c, p) => webhookStatusAction(c, p.webhook_id), s);
  post("/stores/:id/webhooks/:webhook_id/test", (c, p) => testWebhookAction(c, p.webhook_id), s);
  post("/stores/:id/webhooks/:webhook_id/delete", (c, p) => deleteWebhookAction(c, p.webhook_id), s);
  post(
    "/stores/:id/webhooks/:webhook_id/deliveries/:delivery_id/redeliver",
    (c, p) => redeliverAction(c, p.webhook_id, p.delivery_id),
    s,
  );
  get("/stores/:id/sync", (c, p) => syncPage(c, p.id), s);
  post("/stores/:id/sync/:job_id/retry", (c, p) => retrySyncAction(c, p.id, p.job_id), s);
  get("/stores/:id/staff", (c, p) => staffPage(c, p.id), s);
  post("/stores/:id/staff", (c, p) => inviteStaffAction(c, p.id), s);
  post("/stores/:id/staff/:staff_id", (c, p) => updateStaffAction(c, p.id, p.staff_id), s);
  post("/stores/:id/staff/:staff_id/invitation", (c, p) => resendInvitationAction(c, p.id, p.staff_id), s);
}
