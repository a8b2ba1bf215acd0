import { Argument, type Command, Option } from "commander";
import { CliError } from "../client.ts";
import { contextOf, idArg, positiveIntArg, storeOf, withStore } from "../context.ts";
import { type Column, renderRecord, renderTable } from "../output.ts";

export interface Store {
  id: number;
  name: string;
  domain: string;
  currency: string;
  timezone: string;
  owner_email: string | null;
  platform: string;
  /** A Shopify store's shop and its state (decisions section 12). */
  shopify?: { shop: string; status: string; disconnected_reason: string | null; import_error: string | null };
  api_access: boolean;
  numbering: Record<string, unknown>;
  rate_limits: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export const storeColumns: Column<Store>[] = [
  { header: "ID", value: "id", align: "right" },
  { header: "NAME", value: "name" },
  { header: "DOMAIN", value: "domain" },
  { header: "CURRENCY", value: "currency" },
  { header: "TIMEZONE", value: "timezone" },
  // A Shopify store shows its shop's state: importing, connected or disconnected.
  { header: "PLATFORM", value: (s) => (s.shopify ? `${s.platform} ${s.shopify.status}` : s.platform) },
  { header: "API ACCESS", value: (s) => (s.api_access ? "on" : "off") },
  { header: "CREATED", value: "created_at" },
];

export function registerStoreCommands(program: Command): void {
  const stores = program.command("stores").description("list, create, show and update stores");

  stores
    .command("list")
    .description("every store")
    .action(async (_opts, command: Command) => {
      const { client, out } = contextOf(command);
      const res = await client.get<{ data: Store[] }>("/admin/stores");
      out.emit(res, () => renderTable(res.data, storeColumns));
    });

  stores
    .command("create")
    .description(
      "create a store (API access on): on the simulated platform, or attached to a Shopify shop by a custom app's token",
    )
    .option("--name <name>", "store name (Shopify: default the shop's)")
    // Typed in any case (usd, Usd); the service keeps codes in upper case.
    .option(
      "--currency <code>",
      "ISO 4217 currency, e.g. USD, any case (Shopify: the shop's)",
      (raw: string) => raw.trim().toUpperCase(),
    )
    .option("--timezone <tz>", "IANA time zone, e.g. Europe/Berlin (Shopify: default the shop's)")
    .option("--domain <domain>", "shop domain (default: generated, or the Shopify shop's)")
    .option("--owner-email <email>", "store owner's email (webhook notices)")
    .addOption(new Option("--seed <seed>", "simulated platform catalog").choices(["demo", "empty"]))
    .addOption(
      new Option("--platform <platform>", "where the store's catalog lives").choices([
        "simulated",
        "shopify",
      ]),
    )
    .option("--shop <domain>", "Shopify: the shop, <name>.myshopify.com")
    .option(
      "--access-token <token>",
      "Shopify: the custom app's Admin API access token (checked, then sealed)",
    )
    .option("--webhook-secret <secret>", "Shopify: the custom app's webhook signing secret")
    .action(async (opts, command: Command) => {
      const { client, out } = contextOf(command);
      const shopify = opts.platform === "shopify";
      if (shopify && (opts.shop === undefined || opts.accessToken === undefined))
        throw new CliError("A Shopify store needs --shop and --access-token.", 2);
      if (!shopify) {
        const missing = ["name", "currency", "timezone"].filter((o) => opts[o] === undefined);
        if (missing.length > 0)
          throw new CliError(
            `Missing ${missing.map((o) => `--${o}`).join(", ")} (see stores create --help).`,
            2,
          );
      }
      const res = await client.post<{ data: Store }>("/admin/stores", {
        ...(opts.name !== undefined && { name: opts.name }),
        ...(opts.currency !== undefined && { currency: opts.currency }),
        ...(opts.timezone !== undefined && { timezone: opts.timezone }),
        ...(opts.domain !== undefined && { domain: opts.domain }),
        ...(opts.ownerEmail !== undefined && { owner_email: opts.ownerEmail }),
        ...(opts.seed !== undefined && { seed: opts.seed }),
        ...(opts.platform !== undefined && { platform: opts.platform }),
        ...(shopify && {
          shopify: {
            shop: opts.shop,
            access_token: opts.accessToken,
            ...(opts.webhookSecret !== undefined && { webhook_secret: opts.webhookSecret }),
          },
        }),
      });
      out.emit(res, () => renderRecord(res.data as unknown as Record<string, unknown>));
    });

  stores
    .command("show")
    .description("one store with its settings")
    .argument("<id>", "store id", idArg)
    .action(async (id: number, _opts, command: Command) => {
      const { client, out } = contextOf(command);
      const res = await client.get<{ data: Store }>(`/admin/stores/${id}`);
      out.emit(res, () => renderRecord(res.data as unknown as Record<string, unknown>));
    });

  stores
    .command("update")
    .description("change a store's name, owner email, numbering, rate limits or Shopify access token")
    .argument("<id>", "store id", idArg)
    .option("--name <name>", "store name")
    .option("--owner-email <email>", "owner email ('none' clears it)")
    .option("--po-prefix <prefix>", "purchase order number prefix")
    .option("--sa-prefix <prefix>", "stock adjustment number prefix")
    .option("--next-po-number <n>", "next purchase order number", positiveIntArg)
    .option("--next-sa-number <n>", "next stock adjustment number", positiveIntArg)
    .option("--per-key-per-minute <n>", "rate limit per key", positiveIntArg)
    .option("--per-store-per-minute <n>", "rate limit per store", positiveIntArg)
    .option("--writes-per-store-per-minute <n>", "write rate limit per store", positiveIntArg)
    .option("--shopify-access-token <token>", "a new Admin API token for the store's shop (reconnects it)")
    .action(async (id: number, opts, command: Command) => {
      const { client, out } = contextOf(command);
      const numbering = {
        ...(opts.poPrefix !== undefined && { purchase_order_prefix: opts.poPrefix }),
        ...(opts.saPrefix !== undefined && { stock_adjustment_prefix: opts.saPrefix }),
        ...(opts.nextPoNumber !== undefined && { next_purchase_order_number: opts.nextPoNumber }),
        ...(opts.nextSaNumber !== undefined && { next_stock_adjustment_number: opts.nextSaNumber }),
      };
      const rateLimits = {
        ...(opts.perKeyPerMinute !== undefined && { per_key_per_minute: opts.perKeyPerMinute }),
        ...(opts.perStorePerMinute !== undefined && { per_store_per_minute: opts.perStorePerMinute }),
        ...(opts.writesPerStorePerMinute !== undefined && {
          writes_per_store_per_minute: opts.writesPerStorePerMinute,
        }),
      };
      const body = {
        ...(opts.name !== undefined && { name: opts.name }),
        ...(opts.ownerEmail !== undefined && {
          owner_email: opts.ownerEmail === "none" ? null : opts.ownerEmail,
        }),
        ...(Object.keys(numbering).length > 0 && { numbering }),
        ...(Object.keys(rateLimits).length > 0 && { rate_limits: rateLimits }),
        ...(opts.shopifyAccessToken !== undefined && { shopify: { access_token: opts.shopifyAccessToken } }),
      };
      if (Object.keys(body).length === 0)
        throw new CliError("Nothing to change: pass at least one option (see stores update --help).", 2);
      const res = await client.patch<{ data: Store }>(`/admin/stores/${id}`, body);
      out.emit(res, () => renderRecord(res.data as unknown as Record<string, unknown>));
    });

  withStore(
    program
      .command("api-access")
      .description("turn a store's API access on or off (off: every key answers 402 feature_not_enabled)")
      .addArgument(new Argument("<state>", "on or off").choices(["on", "off"])),
  ).action(async (state: "on" | "off", _opts, command: Command) => {
    const { client, out } = contextOf(command);
    const storeId = storeOf(command);
    const res = await client.patch<{ data: Store }>(`/admin/stores/${storeId}`, {
      api_access: state === "on",
    });
    out.emit(
      res,
      () => `API access for store ${storeId} (${res.data.name}) is ${res.data.api_access ? "on" : "off"}.\n`,
    );
  });
}
