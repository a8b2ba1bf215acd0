import type { Scenario } from "./scenario.ts";
import { whoami } from "./whoami.ts";

/** Every scenario, in the order they run (later ones reuse fixtures earlier ones built). */
export const scenarios: readonly Scenario[] = [whoami];
