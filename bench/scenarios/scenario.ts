import type { Bench } from "../lib/context.ts";
import type { Row, ScenarioOutput, Target } from "../lib/types.ts";

export interface Scenario {
  name: string;
  title: string;
  issue: number;
  /** Routes the scenario needs, as `METHOD /v2/path/{param}` (OpenAPI form); missing → skipped. */
  requires: string[];
  run(bench: Bench): Promise<ScenarioOutput>;
}

/** A target check: `met` is null when the target does not apply to this database (printed only). */
export function target(
  issue: number,
  text: string,
  value: number | null,
  unit: string,
  met: boolean | null,
): Target {
  return { issue, text, value, unit, met: value === null ? (met === null ? null : false) : met };
}

export function output(partial: Partial<ScenarioOutput> & { rows: Row[] }): ScenarioOutput {
  return { figures: {}, targets: [], notes: [], ...partial };
}
