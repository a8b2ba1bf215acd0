import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, it } from "node:test";

/**
 * src/start-memory.ts in a process of its own (V8's flags are the process's): work that keeps most of
 * what it allocates, as start-up does, grows the young generation to its ceiling unless it is held;
 * once settled, the same work grows it again (throughput under load keeps its young generation). A
 * worker thread starts in between, as the embedded database's does.
 */
const script = `
import v8 from "node:v8";
import { Worker } from "node:worker_threads";
const { holdYoungGenerationDuringStart, keepHoldAfterThreadStart, settleMemoryAfterStart } = await import(${JSON.stringify(
  new URL("../../src/start-memory.ts", import.meta.url).href,
)});
const youngMb = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size / 1048576;
const kept = [];
function startUpLikeWork() {
  for (let i = 0; i < 400000; i++) kept.push({ i, text: "row " + i, list: [i, i + 1] });
}
const initial = youngMb();
if (process.env.START_MEMORY_MODE === "hold") holdYoungGenerationDuringStart();
// A thread started during start-up (the embedded database's) sets V8's flags back when it starts.
const thread = new Worker("setTimeout(() => {}, 100)", { eval: true });
thread.once("online", keepHoldAfterThreadStart);
await new Promise((resolve) => thread.once("exit", resolve));
startUpLikeWork();
const duringStart = youngMb();
settleMemoryAfterStart();
startUpLikeWork();
console.log(JSON.stringify({ initial, duringStart, afterSettling: youngMb(), kept: kept.length }));
`;

function run(mode: "hold" | "default"): { initial: number; duringStart: number; afterSettling: number } {
  const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    encoding: "utf8",
    env: { ...process.env, START_MEMORY_MODE: mode },
  });
  return JSON.parse(out.trim().split("\n").at(-1) as string);
}

describe("memory during and after start-up", () => {
  it("without the hold, start-up-like work grows the young generation far past its initial size", () => {
    const { initial, duringStart } = run("default");
    assert.ok(duringStart >= initial * 4, `young generation ${initial} MB -> ${duringStart} MB`);
  });

  it("held during start-up, it does not grow past its initial size; settled, it grows again under the same work", () => {
    const { initial, duringStart, afterSettling } = run("hold");
    // Not grown is what the hold promises; V8 may still shrink an idle young generation below it.
    assert.ok(duringStart <= initial, `during start-up: ${duringStart} MB (initial ${initial} MB)`);
    assert.ok(afterSettling >= initial * 4, `after settling: ${afterSettling} MB (initial ${initial} MB)`);
  });
});
