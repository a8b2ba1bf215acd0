#!/usr/bin/env node
// The `stockroom` command. Loads tsx's TypeScript hooks into this process, then runs src/cli/main.ts, so
// `serve` and `worker` run in this very process (signals reach them directly).
import { register } from "tsx/esm/api";

register();
await import(new URL("../src/cli/main.ts", import.meta.url).href);
