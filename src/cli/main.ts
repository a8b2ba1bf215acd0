import { Command, CommanderError } from "commander";
import { CliError } from "./client.ts";
import { registerKeyCommands } from "./commands/keys.ts";
import { registerPlatformCommands } from "./commands/platform.ts";
import { registerServerCommands } from "./commands/server.ts";
import { registerStoreCommands } from "./commands/stores.ts";
import { registerSyncCommands } from "./commands/sync.ts";
import { registerWebhookCommands } from "./commands/webhooks.ts";

/**
 * `stockroom …`: a client of the admin API (docs/decisions.md, "Stores and the admin API") plus the server
 * entry points. Human tables on stdout by default, `--json` for scripts; errors on stderr with a non-zero
 * exit.
 */
export function buildProgram(): Command {
  const program = new Command("stockroom")
    .description("Stockroom purchasing and stock-control service: administration from the command line")
    .option("--url <url>", "admin API base URL (default: STOCKROOM_URL or http://127.0.0.1:3000)")
    .option("--token <token>", "admin token (default: STOCKROOM_ADMIN_TOKEN)")
    .option("--json", "print JSON (the API's response body) instead of tables")
    .option("--no-progress", "no progress bar on long operations")
    .showHelpAfterError("(add --help for usage)")
    .addHelpText(
      "after",
      "\nEnvironment: STOCKROOM_URL, STOCKROOM_ADMIN_TOKEN, STOCKROOM_STORE (default --store).\n" +
        "Exit status: 0 on success, 1 on an API or network error, 2 on a usage or configuration error.",
    );
  // Set before the subcommands are added: they inherit it, so usage errors come back to run().
  program.exitOverride();
  registerStoreCommands(program);
  registerKeyCommands(program);
  registerWebhookCommands(program);
  registerSyncCommands(program);
  registerPlatformCommands(program);
  registerServerCommands(program);
  return program;
}

export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed its message (usage errors); help and version exit 0.
      if (
        error.code === "commander.helpDisplayed" ||
        error.code === "commander.help" ||
        error.code === "commander.version"
      )
        return 0;
      if (error.code === "commander.invalidArgument" && !error.message.startsWith("error:")) {
        process.stderr.write(`error: ${error.message}\n`);
      }
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof CliError) {
      process.stderr.write(`error: ${error.message}\n`);
      return error.exitCode;
    }
    const e = error as Error;
    process.stderr.write(`error: unexpected failure: ${e?.message ?? String(error)}\n`);
    if (process.env.STOCKROOM_DEBUG) process.stderr.write(`${e?.stack ?? ""}\n`);
    return 1;
  }
}

// `stockroom … | head` closes the pipe once it has read enough: the reader's choice, not a failure,
// so the command ends quietly instead of with Node's unhandled EPIPE and its stack.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(process.exitCode ?? 0);
});
process.exitCode = await run(process.argv);
