// Tables of the webhooks module. Each table interface is listed in WebhooksTables.
// biome-ignore lint/complexity/noBannedTypes: filled in by the module that owns these tables
export type WebhooksTables = {};
