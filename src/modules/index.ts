import { foundationModule } from "./foundation.ts";
import type { Module } from "./module.ts";

/** Every feature module of the service, in dependency order. */
export const allModules: readonly Module[] = [foundationModule];
