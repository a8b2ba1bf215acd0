import type { Command } from "commander";
import type { AdminKeyView, Page, RequestLogView } from "../../admin/views.ts";
import { SCOPES } from "../../domain/scopes.ts";
import { CliError } from "../client.ts";
import { contextOf, idArg, intArg, parseTimestamp, positiveIntArg, storeOf, withStore } from "../context.ts";
import { type Column, renderRecord, renderTable } from "../output.ts";

export const SCOPE_NAMES: readonly string[] = SCOPES;

const keyColumns: Column<AdminKeyView>[] = [
  { header: "ID", value: "id", align: "right" },
  { header: "NAME", value: "name" },
  { header: "PREFIX", value: "prefix" },
  { header: "SCOPES", value: "scopes" },
  { header: "STATE", value: (k) => keyState(k) },
  { header: "EXPIRES", value: "expires_at" },
  { header: "LAST USED", value: "last_used_at" },
  { header: "CREATED", value: "created_at" },
];

export function keyState(k: { revoked_at: string | null; expires_at: string | null }): string {
  if (k.revoked_at) return "revoked";
  if (k.expires_at && Date.parse(k.expires_at) <= Date.now()) return "expired";
  return "active";
}

const logColumns: Column<RequestLogView>[] = [
  { header: "TIME", value: "created_at" },
  { header: "STATUS", value: "status", align: "right" },
  { header: "METHOD", value: "method" },
  { header: "PATH", value: "path" },
  { header: "KEY", value: "key_id", align: "right" },
  { header: "MS", value: "duration_ms", align: "right" },
  { header: "REQUEST ID", value: "request_id" },
];

function parseScopes(raw: string): string[] {
  const scopes = raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const unknown = scopes.filter((s) => !SCOPE_NAMES.includes(s));
  if (unknown.length > 0)
    throw new CliError(`Unknown scope ${unknown.join(", ")}; scopes are ${SCOPE_NAMES.join(", ")}.`, 2);
  return scopes;
}

export function registerKeyCommands(program: Command): void {
  const keys = program.command("keys").description("create, list and revoke a store's API keys");

  withStore(
    keys
      .command("create")
      .description("create an API key; its secret is printed once")
      .requiredOption("--name <name>", "a name people recognise (shown in history as `by`)")
      .option("--scopes <list>", `comma list of ${SCOPE_NAMES.join(", ")}`, "read")
      .option("--expires-at <when>", "ISO timestamp after which the key stops working"),
  ).action(async (opts, command: Command) => {
    const { client, out } = contextOf(command);
    const storeId = storeOf(command);
    const scopes = parseScopes(opts.scopes);
    if (opts.expiresAt !== undefined && !/^\d{4}-\d{2}-\d{2}T/.test(opts.expiresAt))
      throw new CliError(`--expires-at must be an ISO timestamp such as 2030-01-31T00:00:00Z.`, 2);
    const res = await client.post<{ data: AdminKeyView & { key: string } }>(`/admin/stores/${storeId}/keys`, {
      name: opts.name,
      scopes,
      ...(opts.expiresAt !== undefined && { expires_at: parseTimestamp(opts.expiresAt) }),
    });
    out.emit(res, () => {
      const { key, ...shown } = res.data;
      return `${renderRecord(shown)}\nSecret (shown only now; store it safely):\n${key}\n`;
    });
  });

  withStore(keys.command("list").description("the store's keys, without secrets")).action(
    async (_opts, command: Command) => {
      const { client, out } = contextOf(command);
      const res = await client.get<{ data: AdminKeyView[] }>(`/admin/stores/${storeOf(command)}/keys`);
      out.emit(res, () => renderTable(res.data, keyColumns));
    },
  );

  withStore(
    keys
      .command("revoke")
      .description("revoke a key (it then answers 401)")
      .argument("<key_id>", "key id", idArg),
  ).action(async (keyId: number, _opts, command: Command) => {
    const { client, out } = contextOf(command);
    const res = await client.post<{ data: AdminKeyView }>(
      `/admin/stores/${storeOf(command)}/keys/${keyId}/revoke`,
    );
    out.emit(
      res,
      () => `Key ${res.data.id} (${res.data.name}, ${res.data.prefix}) revoked at ${res.data.revoked_at}.\n`,
    );
  });

  withStore(
    program
      .command("request-log")
      .description("requests made with the store's keys, newest first")
      .option("--key <key_id>", "only this key", idArg)
      .option("--status <code>", "only this HTTP status", intArg)
      .option("--since <when>", "from this time (ISO timestamp or 15m, 2h, 7d ago)", parseTimestamp)
      .option("--until <when>", "up to this time (ISO timestamp or duration ago)", parseTimestamp)
      .option("--limit <n>", "rows per page (1-250)", positiveIntArg, 50)
      .option("--cursor <cursor>", "continue from a previous page")
      .option("--all", "follow every page"),
  ).action(async (opts, command: Command) => {
    const { client, out } = contextOf(command);
    const storeId = storeOf(command);
    const query = {
      key_id: opts.key,
      status: opts.status,
      created_at_min: opts.since,
      created_at_max: opts.until,
      limit: opts.limit,
      cursor: opts.cursor,
    };
    let page = await client.get<Page<RequestLogView>>(`/admin/stores/${storeId}/request_log`, query);
    if (opts.all) {
      const rows = [...page.data];
      while (page.has_more && page.next_cursor) {
        page = await client.get<Page<RequestLogView>>(`/admin/stores/${storeId}/request_log`, {
          ...query,
          cursor: page.next_cursor,
        });
        rows.push(...page.data);
      }
      page = { data: rows, next_cursor: null, has_more: false };
    }
    out.emit(page, () => renderTable(page.data, logColumns));
    if (!out.json && page.has_more && page.next_cursor)
      out.note(`More rows: add --cursor ${page.next_cursor} (or --all).`);
  });
}
