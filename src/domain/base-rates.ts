// The base rate of § 247 BGB, which default interest is counted from (§ 288 BGB, docs/api.md part 18).
// Source: the Deutsche Bundesbank, which publishes it in the Federal Gazette for each half-year, on
// 1 January and 1 July ("Basiszinssatz nach § 247 BGB",
// https://www.bundesbank.de/de/bundesbank/organisation/agb-und-regelungen/basiszinssatz-607820).
// In basis points, hundredths of a percentage point (1.27 % is 127): integers, never floats.
// To add a half-year: append one entry, its `from` the 1 January or 1 July it starts, and the rate as
// published (test/interest.test.ts holds the table to that order, one entry a half-year, no gap). A day
// after the last known half-year is counted at the last known rate, so a late entry only moves reminders
// issued after it is added.

interface BaseRate {
  /** The first day it applies: a 1 January or 1 July, `YYYY-MM-DD`. */
  from: string;
  /** The rate in basis points (may be negative: it was from 2013 to 2022). */
  basisPoints: number;
}

export const BASE_RATES: readonly BaseRate[] = [
  { from: "2024-01-01", basisPoints: 362 },
  { from: "2024-07-01", basisPoints: 337 },
  { from: "2025-01-01", basisPoints: 227 },
  { from: "2025-07-01", basisPoints: 127 },
  { from: "2026-01-01", basisPoints: 127 },
];

/** The base rate of a day in basis points; a RangeError for a day before the table's first half-year. */
export function baseRateOn(day: string): number {
  let found: BaseRate | undefined;
  for (const rate of BASE_RATES) if (rate.from <= day) found = rate;
  if (!found) throw new RangeError(`no base rate is known for ${day}: BASE_RATES begins ${BASE_RATES[0]!.from}`);
  return found.basisPoints;
}
