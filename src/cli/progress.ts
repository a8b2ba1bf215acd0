/**
 * A progress bar on stderr for long operations (import, bulk seed). On a terminal it redraws one line;
 * elsewhere (pipes, CI logs) it prints a line at most every 10 %, so logs stay short. stdout is never
 * touched, so `--json` output stays parseable.
 */
export class ProgressBar {
  private done = 0;
  private lastPrintedTenth = -1;
  private readonly started = Date.now();
  private readonly tty: boolean;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly enabled = true,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.tty = Boolean(stream.isTTY);
    this.draw();
  }

  tick(count = 1): void {
    this.done = Math.min(this.total, this.done + count);
    this.draw();
  }

  finish(): void {
    this.done = this.total;
    this.draw();
    if (this.enabled && this.tty) this.stream.write("\n");
  }

  private draw(): void {
    if (!this.enabled) return;
    const ratio = this.total === 0 ? 1 : this.done / this.total;
    const percent = Math.floor(ratio * 100);
    const seconds = ((Date.now() - this.started) / 1000).toFixed(1);
    const counts = `${this.done}/${this.total} (${percent}%) ${seconds}s`;
    if (this.tty) {
      const width = 30;
      const filled = Math.round(ratio * width);
      this.stream.write(`\r${this.label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${counts}`);
      return;
    }
    const tenth = Math.floor(ratio * 10);
    if (tenth !== this.lastPrintedTenth) {
      this.lastPrintedTenth = tenth;
      this.stream.write(`${this.label}: ${counts}\n`);
    }
  }
}
