/**
 * How the console prints a moment (issue 20): "26 Nov 2026, 11:04" in the store's time zone, the one
 * format every page uses. The API gives UTC instants; a merchant reads their own clock. Without a store
 * (the operator's admin pages) the moment is shown in UTC and says so. Plain dates (`paid_on`,
 * `expected_at`) are not moments and are never shifted; they are written in the same day format
 * ("10 May 2031"), so a page does not print "2031-05-10" beside "26 Nov 2026, 11:04".
 */

const formats = new Map<string, Intl.DateTimeFormat>();

function formatIn(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat("en-US", {
        day: "numeric",
        month: "short",
        year: "numeric",
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
        timeZone,
      });
    } catch {
      // A zone this runtime does not know must not break the page: the instant in UTC instead.
      return formatIn("UTC");
    }
    formats.set(timeZone, format);
  }
  return format;
}

/** "2026-11-26T10:04:00.123Z" in "Europe/Berlin" as "26 Nov 2026, 11:04"; null for no instant. */
export function shownTime(iso: string, timeZone: string | null | undefined): string | null {
  const instant = new Date(iso);
  if (Number.isNaN(instant.getTime())) return null;
  // Assembled from parts so the order (day month year) does not depend on the locale data's version.
  const part: Record<string, string> = {};
  for (const p of formatIn(timeZone ?? "UTC").formatToParts(instant)) part[p.type] = p.value;
  const shown = `${part.day} ${part.month} ${part.year}, ${part.hour}:${part.minute}`;
  return timeZone ? shown : `${shown} UTC`;
}

/** How far the zone's wall clock is ahead of UTC at an instant, in milliseconds. */
function offsetAt(instant: number, timeZone: string): number {
  const part: Record<string, string> = {};
  for (const p of formatIn(timeZone).formatToParts(new Date(instant))) part[p.type] = p.value;
  const month = MONTHS.indexOf(part.month);
  const wall = Date.UTC(Number(part.year), month, Number(part.day), Number(part.hour), Number(part.minute));
  return wall - Math.floor(instant / 60_000) * 60_000;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * A calendar day the API gives as "2031-05-10" (a payment's day, an expected delivery, a price's start)
 * as "10 May 2031", the day as shownTime writes a moment's; null when it is no such day. A day is the
 * same in every zone, so it is never shifted.
 */
export function shownDate(day: string | null | undefined): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day ?? "");
  if (!match) return null;
  const [year, month, date] = match.slice(1).map(Number);
  const check = new Date(Date.UTC(year, month - 1, date));
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== date) return null;
  return `${date} ${MONTHS[month - 1]} ${match[1]}`;
}

/**
 * A wall-clock time typed in a store's page ("2026-11-26T11:04", a datetime-local field) as the
 * instant it names in the store's zone, so what the merchant types is what the page shows back; null
 * when it is not such a time. A time the clock skips (the hour lost to summer time) lands an hour away.
 */
export function instantOf(local: string, timeZone: string | null | undefined): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map((n) => Number(n ?? 0));
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(wall);
  const outOfRange = hour > 23 || minute > 59 || second > 59;
  if (outOfRange || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return null;
  const zone = timeZone ?? "UTC";
  // The offset at the wall time read as UTC, then at the instant that gives: right on either side of a
  // change of offset, since the two readings agree away from one.
  const first = wall - offsetAt(wall, zone);
  return new Date(wall - offsetAt(first, zone)).toISOString();
}
