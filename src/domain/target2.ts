import { addDays } from "./time";

// docs/api.md part 16: the TARGET2 calendar SEPA direct debits settle on. Closed on Saturdays, Sundays,
// 1 January, Good Friday, Easter Monday, 1 May, 25 and 26 December; open every other day.

/** Easter Sunday of `year` (Gregorian; the anonymous algorithm of Meeus/Jones/Butcher), `YYYY-MM-DD`. */
function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/** Whether TARGET2 settles on `day` (`YYYY-MM-DD`). */
export function isTarget2Day(day: string): boolean {
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  const monthDay = day.slice(5);
  if (["01-01", "05-01", "12-25", "12-26"].includes(monthDay)) return false;
  const easter = easterSunday(Number(day.slice(0, 4)));
  return day !== addDays(easter, -2) && day !== addDays(easter, 1);
}

/**
 * The earliest collection date from `today`: the first TARGET2 day with at least `leadDays` TARGET2 days
 * before it, counted from today (today included when it is one). SEPA Core's D-1: on a Friday the
 * next Monday, on a Saturday the Tuesday.
 */
export function earliestCollectionDate(today: string, leadDays: number): string {
  let open = 0;
  for (let day = today; ; day = addDays(day, 1)) {
    if (isTarget2Day(day)) {
      if (open >= leadDays) return day;
      open += 1;
    }
  }
}
