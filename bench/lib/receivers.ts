import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Pki } from "../../test/helpers/pki.ts";
import type { ReceiverStats } from "./receivers-child.ts";

const CHILD = fileURLToPath(new URL("./receivers-child.ts", import.meta.url));

/** The webhook receivers' process: `count` HTTPS endpoints on loopback. */
export class Receivers {
  private constructor(
    private readonly child: ChildProcess,
    readonly ports: number[],
  ) {}

  static async start(count: number, pki: Pki): Promise<Receivers> {
    const child = fork(CHILD, [], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const ports = await new Promise<number[]>((resolve, reject) => {
      child.once("error", reject);
      child.once("message", (m: { type: string; ports: number[] }) => resolve(m.ports));
      child.send({ type: "start", count, key: pki.key, cert: pki.cert });
    });
    return new Receivers(child, ports);
  }

  urls(): string[] {
    return this.ports.map((port) => `https://127.0.0.2:${port}/hooks`);
  }

  stats(webhookIds: number[]): Promise<ReceiverStats> {
    return new Promise((resolve) => {
      const onMessage = (m: { type: string; stats: ReceiverStats }) => {
        if (m.type !== "stats") return;
        this.child.off("message", onMessage);
        resolve(m.stats);
      };
      this.child.on("message", onMessage);
      this.child.send({ type: "stats", webhookIds });
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.send({ type: "stop" });
    await exited;
  }
}
