/**
 * Calendar dates in a store's timezone: a store's "today", and the instant a date given without a time
 * (a receipt's received_at) stands for, the start of that day where the store is, not in UTC.
 */

/** A formatter per timezone: building one costs far more than using it (every order save asks). */
const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** Today's date (`YYYY-MM-DD`) in a timezone, e.g. the store's "today" for `effective_from`. */
export function localDate(now: Date, timeZone: string): string {
  let format = dayFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    });
    dayFormats.set(timeZone, format);
  }
  const parts = format.formatToParts(now);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return `${get("year")}-${get("month")}-${get("day")}`;
}

/** 00:00 of a date in a timezone, as an instant. */
export function startOfDay(date: string, timeZone: string): Date {
  const utcMidnight = Date.parse(`${date}T00:00:00Z`);
  let at = utcMidnight - offsetMs(new Date(utcMidnight), timeZone);
  // Around a DST change the offset at the guess can differ from the one at UTC midnight.
  const second = utcMidnight - offsetMs(new Date(at), timeZone);
  if (second !== at) at = second;
  return new Date(at);
}

/** How far the timezone's wall clock is ahead of UTC at an instant (whole seconds). */
function offsetMs(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const local = Date.UTC(
    get("year"),
    get("month") - 1,
    get("day"),
    get("hour"),
    get("minute"),
    get("second"),
  );
  return local - Math.floor(at.getTime() / 1000) * 1000;
}
