import { randomBytes } from "node:crypto";
import { Argument, type Command, Option } from "commander";
import { CliError } from "../client.ts";
import {
  contextOf,
  intArg,
  platformIdArg,
  positiveIntArg,
  readJsonFile,
  storeOf,
  withStore,
} from "../context.ts";
import { renderAnyTable, renderTable } from "../output.ts";
import { ProgressBar } from "../progress.ts";

interface ProductInput {
  title: string;
  vendor?: string;
  product_type?: string;
  status?: string;
  tags?: string[];
  variants: Record<string, unknown>[];
}

interface Product {
  id: number;
  title: string;
  variants?: { id: number; inventory_item_id: number; sku: string | null }[] | null;
  [field: string]: unknown;
}

interface Level {
  inventory_item_id: number;
  location_id: number;
  available: number;
  on_hand: number;
  committed: number;
  incoming: number;
  unit_cost: string | null;
}

const MAX_BATCH = 100;

/** `count` products of `variants` variants each, with unique SKUs, for load and demo data. */
export function generateProducts(count: number, variants: number, prefix: string): ProductInput[] {
  const run = randomBytes(3).toString("hex").toUpperCase();
  const sizes = ["S", "M", "L", "XL", "XXL", "3XL", "4XL", "5XL"];
  return Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(String(count).length, "0");
    return {
      title: `${prefix} ${n}`,
      vendor: "Bulk Supply Co",
      product_type: "Generated",
      tags: ["generated", `run-${run.toLowerCase()}`],
      variants: Array.from({ length: variants }, (_, v) => ({
        title: sizes[v] ?? `Variant ${v + 1}`,
        sku: `GEN-${run}-${n}-${v + 1}`,
        price: (10 + ((i * 7 + v * 3) % 90)).toFixed(2),
        unit_cost: (4 + ((i * 5 + v * 2) % 40) + 0.25).toFixed(2),
        weight_grams: 100 + v * 50,
        inventory_tracked: true,
      })),
    };
  });
}

function productsFromFile(file: string): ProductInput[] {
  const parsed = readJsonFile(file) as { products?: unknown } | unknown[];
  const list = Array.isArray(parsed) ? parsed : (parsed as { products?: unknown })?.products;
  if (!Array.isArray(list) || list.length === 0)
    throw new CliError(`${file} must hold {"products": [...]} or a non-empty array of products.`);
  return list as ProductInput[];
}

const levelColumns = [
  { header: "INVENTORY ITEM", value: "inventory_item_id" as const, align: "right" as const },
  { header: "LOCATION", value: "location_id" as const, align: "right" as const },
  { header: "AVAILABLE", value: "available" as const, align: "right" as const },
  { header: "ON HAND", value: "on_hand" as const, align: "right" as const },
  { header: "COMMITTED", value: "committed" as const, align: "right" as const },
  { header: "INCOMING", value: "incoming" as const, align: "right" as const },
  { header: "UNIT COST", value: "unit_cost" as const, align: "right" as const },
];

export function registerPlatformCommands(program: Command): void {
  const platform = program
    .command("platform")
    .description("controls of the simulated commerce platform (products, stock levels, faults)");

  const products = platform.command("products").description("products on the simulated platform");
  withStore(
    products
      .command("add")
      .description("create products from a JSON file, or generate many (bulk seed)")
      .option("--file <path>", "JSON {\"products\": [...]} or an array ('-' for stdin)")
      .option("--generate <n>", "generate this many products", positiveIntArg)
      .option("--variants <n>", "variants per generated product (1-8)", positiveIntArg, 3)
      .option("--prefix <title>", "title of generated products", "Generated product")
      .option("--batch <n>", `products per request (1-${MAX_BATCH})`, positiveIntArg, 25),
  ).action(async (opts, command: Command) => {
    const { client, out, progress } = contextOf(command);
    const storeId = storeOf(command);
    if ((opts.file === undefined) === (opts.generate === undefined))
      throw new CliError("Pass exactly one of --file <path> or --generate <n>.", 2);
    if (opts.variants > 8) throw new CliError("--variants must be between 1 and 8.", 2);
    if (opts.batch > MAX_BATCH) throw new CliError(`--batch must be between 1 and ${MAX_BATCH}.`, 2);
    const inputs =
      opts.file !== undefined
        ? productsFromFile(opts.file)
        : generateProducts(opts.generate, opts.variants, opts.prefix);
    const bar = new ProgressBar("products", inputs.length, progress);
    const created: Product[] = [];
    for (let i = 0; i < inputs.length; i += opts.batch) {
      const batch = inputs.slice(i, i + opts.batch);
      try {
        const res = await client.post<{ data: Product[] }>(`/admin/stores/${storeId}/platform/products`, {
          products: batch,
        });
        created.push(...res.data);
      } catch (error) {
        if (created.length > 0 && error instanceof CliError)
          error.message = `${error.message}\n(${created.length} of ${inputs.length} products were created before this failure; products ${i + 1}-${i + batch.length} failed.)`;
        throw error;
      }
      bar.tick(batch.length);
    }
    bar.finish();
    out.emit(
      { data: created },
      () =>
        renderTable(created, [
          { header: "ID", value: "id", align: "right" },
          { header: "TITLE", value: "title" },
          { header: "VARIANTS", value: (p) => p.variants?.length ?? p.variants_count, align: "right" },
          { header: "INVENTORY ITEMS", value: (p) => p.variants?.map((v) => v.inventory_item_id) },
        ]) + `${created.length} product(s) created.\n`,
    );
  });

  const inventory = platform.command("inventory").description("platform-side stock levels");
  withStore(
    inventory
      .command("get")
      .description("levels and item unit costs on the platform")
      .option("--item <inventory_item_id>", "only this item", platformIdArg)
      .option("--location <location_id>", "only this location", platformIdArg),
  ).action(async (opts, command: Command) => {
    const { client, out } = contextOf(command);
    const res = await client.get<{ data: Level[] }>(`/admin/stores/${storeOf(command)}/platform/inventory`, {
      inventory_item_id: opts.item,
      location_id: opts.location,
    });
    out.emit(res, () => renderTable(res.data, levelColumns));
  });

  for (const mode of ["set", "adjust"] as const) {
    withStore(
      inventory
        .command(mode)
        .description(
          mode === "set"
            ? "set a platform-side level"
            : "move a platform-side level by a delta (a sale is a negative delta on available)",
        )
        .argument(mode === "set" ? "<quantity>" : "<delta>", "whole number", intArg)
        .requiredOption("--item <inventory_item_id>", "inventory item", platformIdArg)
        .requiredOption("--location <location_id>", "location", platformIdArg)
        .addOption(
          new Option("--name <level>", "which quantity")
            .choices(["available", "on_hand", "incoming"])
            .default("available"),
        ),
    ).action(async (value: number, opts, command: Command) => {
      const { client, out } = contextOf(command);
      const res = await client.post<{ data: Level[] }>(
        `/admin/stores/${storeOf(command)}/platform/inventory`,
        {
          changes: [
            { inventory_item_id: opts.item, location_id: opts.location, name: opts.name, [mode]: value },
          ],
        },
      );
      out.emit(res, () => renderTable(res.data, levelColumns));
    });
  }

  withStore(
    platform
      .command("faults")
      .description(
        "make the next pushes to the platform fail (down: transient, reject: permanent) or succeed (ok)",
      )
      .addArgument(new Argument("<mode>", "down, reject or ok").choices(["down", "reject", "ok"]))
      .option("--count <n>", "how many pushes (default: until changed)", positiveIntArg),
  ).action(async (mode: string, opts, command: Command) => {
    const { client, out } = contextOf(command);
    const res = await client.post<{ data?: Record<string, unknown> }>(
      `/admin/stores/${storeOf(command)}/platform/faults`,
      { mode, ...(opts.count !== undefined && { count: opts.count }) },
    );
    out.emit(res, () =>
      res?.data && typeof res.data === "object"
        ? renderAnyTable([res.data])
        : `Platform faults set to ${mode}${opts.count !== undefined ? ` for ${opts.count} push(es)` : ""}.\n`,
    );
  });
}
