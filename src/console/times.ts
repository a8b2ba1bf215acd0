/**
 * How the console prints a moment (issue 20): "26 Nov 2026, 11:04" in the store's time zone, the one
 * format every page uses. The API gives UTC instants; a merchant reads their own clock. Without a store
 * (the operator's admin pages) the moment is shown in UTC and says so. Plain dates (`paid_on`,
 * `expected_at`) are not moments and are never shifted.
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
