import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { LoadResult, LoadSpec } from "./load-types.ts";

const CHILD = fileURLToPath(new URL("./load-child.ts", import.meta.url));

/**
 * Runs one load in a fresh autocannon process and returns its figures. `onMeasuring` runs as the
 * warm-up ends, before the measured run starts (which waits for it): where a CPU reading is taken.
 */
export function runLoad(spec: LoadSpec, onMeasuring?: () => Promise<unknown>): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD, [], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      serialization: "advanced",
    });
    let settled = false;
    const bound = (spec.warmupSec + spec.durationSec) * 1000 + 120_000;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      child.kill("SIGKILL");
      reject(new Error(`load generator did not finish within ${Math.round(bound / 1000)} s`));
    }, bound);
    child.on(
      "message",
      (message: { measuring?: true; ok?: boolean; result?: LoadResult; error?: string }) => {
        if (message.measuring) {
          const go = () => child.send({ go: true });
          void (onMeasuring?.() ?? Promise.resolve()).then(go, go);
          return;
        }
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (message.ok && message.result) resolve(message.result);
        else reject(new Error(`load generator failed: ${message.error}`));
      },
    );
    child.once("exit", (code) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Error(`load generator exited with ${code} before answering`));
    });
    child.send(spec);
  });
}
