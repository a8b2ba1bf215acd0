import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { setPriority } from "node:os";
import { getuid } from "node:process";
import { describe, it } from "node:test";
import { LOOP_NICENESS, raiseLoopPriority } from "../../src/loop-priority.ts";

/** Each thread of this process by id with its nice value (field 19 of /proc/self/task/<tid>/stat). */
function threadNiceness(): Map<number, number> {
  const nice = new Map<number, number>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      nice.set(Number(tid), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return nice;
}

describe("the event loop's priority (src/loop-priority.ts)", { skip: process.platform !== "linux" }, () => {
  it("raises the calling thread alone to LOOP_NICENESS where permitted (root here)", (t) => {
    if (getuid?.() !== 0) {
      t.skip("needs root or CAP_SYS_NICE");
      return;
    }
    const before = threadNiceness();
    const messages: string[] = [];
    try {
      assert.equal(
        raiseLoopPriority((m) => messages.push(m)),
        true,
      );
      const after = threadNiceness();
      assert.equal(after.get(process.pid), LOOP_NICENESS);
      // V8's and libuv's threads keep theirs: a niceness is a thread's on Linux, not the process's.
      for (const [tid, nice] of after)
        if (tid !== process.pid && before.has(tid)) assert.equal(nice, before.get(tid), `thread ${tid}`);
      assert.deepEqual(messages, []);
    } finally {
      setPriority(before.get(process.pid) as number);
    }
  });

  it("not permitted: leaves the priority as it was and says so once", () => {
    const before = threadNiceness().get(process.pid);
    const messages: string[] = [];
    // What os.setPriority throws for an unprivileged user.
    const refuse = () => {
      throw Object.assign(new Error("uv_os_setpriority returned EACCES (permission denied)"), {
        code: "ERR_SYSTEM_ERROR",
        info: { code: "EACCES" },
      });
    };
    assert.equal(
      raiseLoopPriority((m) => messages.push(m), refuse),
      false,
    );
    assert.equal(messages.length, 1);
    assert.match(messages[0], /normal priority \(niceness -10 not permitted: EACCES\)/);
    assert.equal(threadNiceness().get(process.pid), before);
  });
});
