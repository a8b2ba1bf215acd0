import type { Command } from "commander";
import { CliError } from "../client.ts";
import { contextOf, intArg, readJsonFile, storeOf, withStore } from "../context.ts";
import { renderMixed, renderRecord, renderTable } from "../output.ts";

interface AlertRules {
  low_stock_threshold: number | null;
  items: AlertItem[];
}

interface AlertItem {
  inventory_item_id: number;
  location_id: number | null;
  reorder_point: number | null;
  max_stock: number | null;
}

function renderRules(rules: AlertRules): string {
  return (
    renderRecord({ low_stock_threshold: rules.low_stock_threshold }) +
    `\nitems:\n` +
    renderTable(rules.items, [
      { header: "INVENTORY ITEM", value: "inventory_item_id", align: "right" },
      { header: "LOCATION", value: (r) => r.location_id ?? "all", align: "right" },
      { header: "REORDER POINT", value: "reorder_point", align: "right" },
      { header: "MAX STOCK", value: "max_stock", align: "right" },
    ])
  );
}

/** `ITEM[@LOCATION]=REORDER:MAX` with either side of the colon empty for null, e.g. `123@7=5:40`, `123=:100`. */
export function parseItemRule(raw: string): AlertItem {
  const match = /^(\d+)(?:@(\d+))?=(\d*):(\d*)$/.exec(raw.trim());
  if (!match)
    throw new CliError(
      `--item must look like ITEM[@LOCATION]=REORDER_POINT:MAX_STOCK (either may be empty), got "${raw}".`,
      2,
    );
  const num = (s: string | undefined) => (s === undefined || s === "" ? null : Number(s));
  return {
    inventory_item_id: Number(match[1]),
    location_id: num(match[2]),
    reorder_point: num(match[3]),
    max_stock: num(match[4]),
  };
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerSyncCommands(program: Command): void {
  const sync = program.command("sync").description("the platform sync queue of a store");
  withStore(
    sync.command("status").description("counts by state and the failed items with their job ids"),
  ).action(async (_opts, command: Command) => {
    const { client, out } = contextOf(command);
    const res = await client.get<{ data: Record<string, unknown> }>(`/admin/stores/${storeOf(command)}/sync`);
    out.emit(res, () => renderMixed(res.data));
  });
  withStore(
    sync
      .command("retry")
      .description("retry one failed sync job")
      .argument("<job_id>", "job id (see sync status)"),
  ).action(async (jobId: string, _opts, command: Command) => {
    const { client, out } = contextOf(command);
    const res = await client.post<{ data: Record<string, unknown> }>(
      `/admin/stores/${storeOf(command)}/sync/${encodeURIComponent(jobId)}/retry`,
    );
    out.emit(res, () => `Job ${jobId} queued for retry.\n${res?.data ? renderMixed(res.data) : ""}`);
  });

  const rules = program.command("alert-rules").description("stock alert thresholds of a store");
  withStore(rules.command("get").description("the store's alert rules")).action(
    async (_opts, command: Command) => {
      const { client, out } = contextOf(command);
      const res = await client.get<{ data: AlertRules }>(`/admin/stores/${storeOf(command)}/alert_rules`);
      out.emit(res, () => renderRules(res.data));
    },
  );
  withStore(
    rules
      .command("set")
      .description("replace the rules from a file, or change parts of the current rules")
      .option(
        "--file <path>",
        "JSON {low_stock_threshold, items: [...]} replacing every rule ('-' for stdin)",
      )
      .option("--low-stock-threshold <n>", "units at or below which an item is low ('none' to clear)")
      .option(
        "--item <rule>",
        "ITEM[@LOCATION]=REORDER_POINT:MAX_STOCK (repeatable; adds or replaces)",
        collect,
      )
      .option("--remove-item <item>", "ITEM[@LOCATION] to drop (repeatable)", collect),
  ).action(async (opts, command: Command) => {
    const { client, out } = contextOf(command);
    const storeId = storeOf(command);
    const path = `/admin/stores/${storeId}/alert_rules`;
    let body: AlertRules;
    if (opts.file !== undefined) {
      if (opts.lowStockThreshold !== undefined || opts.item || opts.removeItem)
        throw new CliError("--file replaces every rule; do not combine it with other options.", 2);
      body = readJsonFile(opts.file) as AlertRules;
    } else {
      if (opts.lowStockThreshold === undefined && !opts.item && !opts.removeItem)
        throw new CliError("Nothing to set: pass --file, --low-stock-threshold, --item or --remove-item.", 2);
      body = (await client.get<{ data: AlertRules }>(path)).data;
      if (opts.lowStockThreshold !== undefined)
        body.low_stock_threshold = opts.lowStockThreshold === "none" ? null : intArg(opts.lowStockThreshold);
      const same = (a: AlertItem, item: number, location: number | null) =>
        a.inventory_item_id === item && (a.location_id ?? null) === location;
      for (const raw of (opts.removeItem ?? []) as string[]) {
        const m = /^(\d+)(?:@(\d+))?$/.exec(raw.trim());
        if (!m) throw new CliError(`--remove-item must look like ITEM[@LOCATION], got "${raw}".`, 2);
        const location = m[2] === undefined ? null : Number(m[2]);
        body.items = body.items.filter((a) => !same(a, Number(m[1]), location));
      }
      for (const raw of (opts.item ?? []) as string[]) {
        const rule = parseItemRule(raw);
        body.items = body.items.filter((a) => !same(a, rule.inventory_item_id, rule.location_id));
        body.items.push(rule);
      }
      body = {
        low_stock_threshold: body.low_stock_threshold,
        items: body.items.map((a) => ({
          inventory_item_id: a.inventory_item_id,
          location_id: a.location_id ?? null,
          reorder_point: a.reorder_point ?? null,
          max_stock: a.max_stock ?? null,
        })),
      };
    }
    const res = await client.put<{ data: AlertRules }>(path, body);
    out.emit(res, () => renderRules(res.data));
  });
}
