import fc from "fast-check";

// CONTRACT part 18's interest rule computed the naive way, independently of src/domain/interest.ts: a
// calendar of its own (a day as year, month and day, stepped by hand), the rates as published, the open
// amount replayed day by day, each day's interest an exact fraction (cents × percent / 100 / 365, the
// percent's hundredths as an integer), summed as one fraction and rounded half up to the cent by
// integer comparison.

/** The base rates as the Deutsche Bundesbank published them (§ 247 BGB), percent strings, written again here. */
export const PUBLISHED: [string, string][] = [
  ["2024-01-01", "3.62"],
  ["2024-07-01", "3.37"],
  ["2025-01-01", "2.27"],
  ["2025-07-01", "1.27"],
  ["2026-01-01", "1.27"],
];

const LENGTHS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const leap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

export function nextDay(day: string): string {
  let [y, m, d] = day.split("-").map(Number) as [number, number, number];
  d++;
  if (d > (m === 2 && leap(y) ? 29 : LENGTHS[m - 1]!)) [m, d] = [m + 1, 1];
  if (m > 12) [y, m] = [y + 1, 1];
  return `${y}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}

/** The default rate of a day in hundredths of a percent: the last half-year published by then, + 5 or + 9 points. */
function hundredthsOn(day: string, consumer: boolean): bigint {
  const rate = PUBLISHED.filter(([from]) => from <= day).at(-1)![1];
  return BigInt(rate.replace(".", "")) + (consumer ? 500n : 900n);
}

/** The interest in cents from `from` to `to`, both included, of an open amount and its dated changes. */
export function naiveInterestCents(
  timeline: { openCents: number; changes: readonly { on: string; cents: number }[] },
  from: string,
  to: string,
  consumer: boolean,
): number {
  // A sum of fractions n / (100 × 100 × 365): cents × hundredths of a percent, a day at a time.
  let numerator = 0n;
  let balance = timeline.openCents;
  for (const change of timeline.changes) if (change.on < from) balance += change.cents;
  for (let day = from; day <= to; day = nextDay(day)) {
    for (const change of timeline.changes) if (change.on === day) balance += change.cents;
    numerator += BigInt(Math.max(0, balance)) * hundredthsOn(day, consumer);
  }
  const denominator = 10_000n * 365n;
  // The cents c with c - 1/2 <= n/d < c + 1/2.
  let cents = numerator / denominator;
  if ((numerator - cents * denominator) * 2n >= denominator) cents++;
  return Number(cents);
}

/** Every day from 2024-01-01 to 2027-12-31. */
export const CALENDAR: readonly string[] = (() => {
  const days: string[] = [];
  for (let day = "2024-01-01"; day <= "2027-12-31"; day = nextDay(day)) days.push(day);
  return days;
})();

/** The edges: half-years' first and last days, and 29 February. */
const EDGES = ["2024-02-28", "2024-02-29", "2024-03-01", "2024-06-30", "2024-07-01", "2024-12-31", "2025-01-01"].concat(
  ["2025-06-30", "2025-07-01", "2025-12-31", "2026-01-01", "2026-06-30", "2026-07-01", "2027-01-01"],
);

/** A day of CALENDAR, an edge half the time. */
export const aDay = fc.oneof(fc.constantFrom(...EDGES), fc.constantFrom(...CALENDAR));
