/**
 * The service as a child process, for tests of what a user runs (`stockroom serve`, `npm start`): a free
 * port to give it, starting it and waiting for its start-up banner, and stopping it with a signal.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface ChildServer {
  child: ChildProcess;
  /** Everything it wrote so far, stdout and stderr together. */
  output: () => string;
}

/**
 * Runs `node <args>` and resolves once the start-up banner is complete: the "listening at" line and the
 * lines after it up to the blank line that ends it (the demo key and the admin token are printed
 * there). Rejects with the output if the process exits first. No deadline: on a busy machine the start
 * takes longer, and the test runner's own timeout is the only bound.
 */
export async function startChildServer(
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string },
): Promise<ChildServer> {
  const child = spawn(process.execPath, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const bannerDone = () => {
    const at = output.indexOf("listening at");
    return at >= 0 && output.indexOf("\n\n", at) >= 0;
  };
  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`server exited with ${code}:\n${output}`));
    // Registered after the collectors, so it sees each chunk already appended.
    const check = () => {
      if (!bannerDone()) return;
      child.off("exit", onExit);
      child.stdout!.off("data", check);
      child.stderr!.off("data", check);
      resolve();
    };
    child.stdout!.on("data", check);
    child.stderr!.on("data", check);
    child.once("exit", onExit);
    child.once("error", reject);
  });
  return { child, output: () => output };
}

/** Sends `signal` and resolves with the exit code (at once if it has already exited). */
export function stopChildServer(
  child: ChildProcess,
  signal: NodeJS.Signals = "SIGTERM",
): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once("exit", (code) => resolve(code));
    child.kill(signal);
  });
}
