/**
 * When a failed webhook delivery is tried again (contract "Events": Retries; docs/decisions.md, "Webhooks").
 *
 * The schedule is the list of waits after each failed attempt: after attempt 1 fails wait schedule[0],
 * after attempt 2 fails wait schedule[1], and so on. When attempt `schedule.length + 1` fails as well the
 * schedule is exhausted and the endpoint is disabled. With the default that is 9 attempts over about
 * 3.6 days ("after about three and a half days of failures").
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const UNIT_MS = { s: SECOND, m: MINUTE, h: HOUR, d: DAY } as const;

/** Events and delivery rows are kept 30 days, so a longer wait would retry an event already purged. */
const MAX_DELAY_MS = 30 * DAY;

/** 1 min, 5 min, 30 min, 2 h, 12 h, then daily three times. */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = Object.freeze([
  1 * MINUTE,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  12 * HOUR,
  1 * DAY,
  1 * DAY,
  1 * DAY,
]);

/**
 * Parses a WEBHOOK_RETRY_SCHEDULE value such as "1m,5m,30m,2h,12h,1d,1d,1d" into milliseconds.
 * Each entry is a whole number with unit s, m, h or d; spaces around commas are allowed; 0 is allowed
 * (an immediate retry, handy in development). Throws an Error naming the bad entry otherwise.
 */
export function parseRetrySchedule(text: string): number[] {
  if (text.trim() === "")
    throw new Error('retry schedule is empty; expected a list like "1m,5m,30m,2h,12h,1d"');
  return text.split(",").map((raw, index) => {
    const entry = raw.trim();
    const match = /^(\d{1,6})([smhd])$/.exec(entry);
    if (match === null) {
      throw new Error(
        `retry schedule entry ${index + 1} ("${entry}") is not valid; ` +
          'expected a whole number followed by s, m, h or d, as in "1m,5m,30m,2h,12h,1d"',
      );
    }
    const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
    if (ms > MAX_DELAY_MS) {
      throw new Error(`retry schedule entry ${index + 1} ("${entry}") is longer than 30 days`);
    }
    return ms;
  });
}

/**
 * Wait in milliseconds before the next attempt, after attempt number `failedAttemptNumber` (1-based)
 * failed; null when the schedule is exhausted and the endpoint should be disabled.
 */
export function nextAttemptDelay(schedule: readonly number[], failedAttemptNumber: number): number | null {
  if (!Number.isInteger(failedAttemptNumber) || failedAttemptNumber < 1) {
    throw new RangeError(`failed attempt number must be a positive integer, got ${failedAttemptNumber}`);
  }
  return schedule[failedAttemptNumber - 1] ?? null;
}
