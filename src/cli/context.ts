import { readFileSync } from "node:fs";
import { type Command, InvalidArgumentError } from "commander";
import { AdminClient, CliError, DEFAULT_URL } from "./client.ts";
import { makeOutput, type Output } from "./output.ts";

/** What every command action gets: the admin client, the output mode and (for store commands) the store. */
export interface CommandContext {
  client: AdminClient;
  out: Output;
  progress: boolean;
}

interface GlobalOptions {
  url?: string;
  token?: string;
  json?: boolean;
  progress?: boolean;
  store?: number;
}

export function globalsOf(command: Command): GlobalOptions {
  return command.optsWithGlobals() as GlobalOptions;
}

export function outputOf(command: Command): Output {
  return makeOutput(Boolean(globalsOf(command).json));
}

/** Builds the admin client from --url/--token, else STOCKROOM_URL/STOCKROOM_ADMIN_TOKEN. */
export function contextOf(command: Command): CommandContext {
  const opts = globalsOf(command);
  const url = opts.url ?? process.env.STOCKROOM_URL ?? DEFAULT_URL;
  const token = opts.token ?? process.env.STOCKROOM_ADMIN_TOKEN;
  if (!token)
    throw new CliError(
      "No admin token: pass --token <token> or set STOCKROOM_ADMIN_TOKEN (the service prints it at first start).",
      2,
    );
  return {
    client: new AdminClient(url, token),
    out: makeOutput(Boolean(opts.json)),
    progress: opts.progress !== false,
  };
}

/** The store a store-scoped command works on: --store, else STOCKROOM_STORE. */
export function storeOf(command: Command): number {
  const opts = globalsOf(command);
  if (opts.store !== undefined) return opts.store;
  const env = process.env.STOCKROOM_STORE;
  if (env !== undefined && env !== "") return parseId(env, "STOCKROOM_STORE");
  throw new CliError("Which store? Pass --store <id> or set STOCKROOM_STORE.", 2);
}

export function parseId(raw: string, what = "id"): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 2147483647)
    throw new InvalidArgumentError(`${what} must be a positive whole number, got "${raw}".`);
  return Number(raw);
}

/** A platform id (product, variant, inventory item, location): up to 2^53-1 (decisions §12). */
export function parsePlatformId(raw: string, what = "id"): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw)))
    throw new InvalidArgumentError(`${what} must be a positive whole number up to 2^53-1, got "${raw}".`);
  return Number(raw);
}

export function parseInteger(raw: string, what = "value"): number {
  if (!/^-?\d+$/.test(raw)) throw new InvalidArgumentError(`${what} must be a whole number, got "${raw}".`);
  return Number(raw);
}

/** Commander argument parsers (they receive the raw string first). */
export const idArg = (raw: string) => parseId(raw);
export const platformIdArg = (raw: string) => parsePlatformId(raw);
export const intArg = (raw: string) => parseInteger(raw);
export const positiveIntArg = (raw: string) => {
  const n = parseInteger(raw);
  if (n < 1) throw new InvalidArgumentError(`must be at least 1, got ${n}.`);
  return n;
};

/** Adds the store option to a store-scoped command. */
export function withStore(command: Command): Command {
  return command.option("-s, --store <id>", "store id (default: STOCKROOM_STORE)", (raw: string) =>
    parseId(raw, "--store"),
  );
}

/** A JSON file (or "-" for stdin), parsed; errors name the file. */
export function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (error) {
    throw new CliError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
}

/** `30s`, `15m`, `2h`, `7d` before now, or an ISO timestamp, as an ISO timestamp. */
export function parseTimestamp(raw: string): string {
  const relative = /^(\d+)([smhd])$/.exec(raw);
  if (relative) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[relative[2] as "s" | "m" | "h" | "d"];
    return new Date(Date.now() - Number(relative[1]) * unit).toISOString();
  }
  if (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+)?(Z|[+-]\d{2}:?\d{2})?$/.test(raw) || Number.isNaN(Date.parse(raw)))
    throw new InvalidArgumentError(
      `expected an ISO timestamp or a duration such as 15m, 2h, 7d; got "${raw}".`,
    );
  return new Date(raw).toISOString();
}
