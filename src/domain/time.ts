// Timestamps are `Date.toISOString()` strings, UTC (docs/api.md part 1). Business dates (an invoice's
// booking, due and service days, the year of its number) are calendar days in BUSINESS_TIME_ZONE
// (docs/api.md part 14), `YYYY-MM-DD`.

/** The business time zone when BUSINESS_TIME_ZONE is unset. */
export const DEFAULT_TIME_ZONE = "Europe/Berlin";

const calendars = new Map<string, Intl.DateTimeFormat>();

/** The calendar of an IANA time zone; throws RangeError for a name the runtime does not know. */
function calendarOf(zone: string): Intl.DateTimeFormat {
  let calendar = calendars.get(zone);
  if (!calendar) {
    // en-CA writes dates as YYYY-MM-DD.
    calendar = new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" });
    calendars.set(zone, calendar);
  }
  return calendar;
}

/** Whether `zone` is an IANA time zone the runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    calendarOf(zone);
    return true;
  } catch {
    return false;
  }
}

/** The calendar day of `at` in `zone`, `YYYY-MM-DD`. */
export const dayIn = (at: Date, zone: string): string => calendarOf(zone).format(at);

/** `YYYY-MM-DD` plus `days` calendar days. */
export const addDays = (day: string, days: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** Whether `text` is a real calendar day written `YYYY-MM-DD`. */
export const isDay = (text: string): boolean =>
  /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(text)) && addDays(text, 0) === text;

/**
 * The `updated_at` of a change: now, but always after the previous value, so that it advances on
 * every change even when two land within one millisecond. (db/timestamps.ts says the same in SQL.)
 */
export function nextTimestamp(previous: string, now = new Date()): string {
  return new Date(Math.max(now.getTime(), Date.parse(previous) + 1)).toISOString();
}
