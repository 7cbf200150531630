// Default interest (§ 288 (1) and (2) BGB, docs/api.md part 18): the base rate of § 247 BGB
// (base-rates.ts) plus 5 percentage points for a consumer, plus 9 otherwise; simple interest (§ 289:
// none on interest), per day, actual days / 365, on the open amount of each day, from the day default
// begins to the reminder's issued_on, both included, each day at the rate of its half-year. Summed
// exactly, as integers: the sum of cents × basis points over the days, divided by 365 × 10,000 once and
// rounded half up to the cent once per reminder. No fraction of a cent is ever rounded on the way.
import { baseRateOn } from "./base-rates";
import { addDays, isDay } from "./time";

/** § 288 BGB's margins over the base rate, in basis points. */
export const INTEREST_MARGIN = { consumer: 500, business: 900 } as const;

/** The default interest rate of a day, in basis points. */
export const defaultRateOn = (day: string, consumer: boolean): number =>
  baseRateOn(day) + (consumer ? INTEREST_MARGIN.consumer : INTEREST_MARGIN.business);

/** Basis points as a percent string: 1027 → "10.27", -88 → "-0.88". */
export function percentOf(basisPoints: number): string {
  const sign = basisPoints < 0 ? "-" : "";
  const magnitude = Math.abs(basisPoints);
  return `${sign}${Math.trunc(magnitude / 100)}.${String(magnitude % 100).padStart(2, "0")}`;
}

/** A change of the open amount booked on a day: negative for a payment, positive for a return reopening one. */
interface OpenAmountChange {
  on: string;
  cents: number;
}

/** An invoice's open amount over time. */
export interface OpenAmountTimeline {
  /** The open amount, in cents, before every change below. */
  openCents: number;
  /** The changes, in any order; each counts from its own day. The open amount never goes below zero. */
  changes: readonly OpenAmountChange[];
}

/** The open amount on a day: its changes up to that day included. */
export function openOn(timeline: OpenAmountTimeline, day: string): number {
  let sum = timeline.openCents;
  for (const change of timeline.changes) if (change.on <= day) sum += change.cents;
  return Math.max(0, sum);
}

interface InterestInput {
  timeline: OpenAmountTimeline;
  /** The first day of default, included. */
  defaultSince: string;
  /** The reminder's issued_on, included. */
  until: string;
  consumer: boolean;
}

/** A run of days of one open amount at one rate: a line of the reminder's account of its interest. */
export interface InterestPeriod {
  from: string;
  to: string;
  days: number;
  openCents: number;
  basisPoints: number;
}

interface Interest {
  cents: number;
  /** The days with an open amount, in order; days with nothing open earn nothing and are left out. */
  periods: InterestPeriod[];
}

const DAY_MS = 86_400_000;
const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / DAY_MS;
/** 365 days × 10,000 (basis points to a fraction): what the exact sum is divided by, once. */
const DIVISOR = 3_650_000n;

/** The interest of a reminder: its cents and the periods it is made of. */
export function interestOf(input: InterestInput): Interest {
  check(input);
  const { defaultSince: first, until: last, consumer, timeline } = input;
  if (last < first) return { cents: 0, periods: [] };
  const changes = [...timeline.changes].sort((a, b) => (a.on < b.on ? -1 : a.on > b.on ? 1 : 0));
  let sum = timeline.openCents;
  let next = 0;
  for (; next < changes.length && changes[next]!.on <= first; next++) sum += changes[next]!.cents;

  // The days where the open amount or the rate may change: the changes' and the half-years' first days.
  const breaks = new Set<string>(changes.slice(next).map((change) => change.on));
  for (let year = Number(first.slice(0, 4)); year <= Number(last.slice(0, 4)); year++)
    for (const start of [`${year}-01-01`, `${year}-07-01`]) breaks.add(start);
  const starts = [first, ...[...breaks].filter((day) => day > first && day <= last).sort()];

  const periods: InterestPeriod[] = [];
  let exact = 0n;
  starts.forEach((from, i) => {
    for (; next < changes.length && changes[next]!.on <= from; next++) sum += changes[next]!.cents;
    const to = i + 1 < starts.length ? addDays(starts[i + 1]!, -1) : last;
    const openCents = Math.max(0, sum);
    const basisPoints = defaultRateOn(from, consumer);
    const days = dayNumber(to) - dayNumber(from) + 1;
    if (openCents === 0) return;
    if (basisPoints < 0) throw new RangeError(`a negative default rate on ${from}: ${basisPoints}`);
    exact += BigInt(openCents) * BigInt(basisPoints) * BigInt(days);
    const previous = periods.at(-1);
    const same = previous?.openCents === openCents && previous.basisPoints === basisPoints;
    if (previous && same && previous.to === addDays(from, -1)) {
      previous.to = to;
      previous.days += days;
    } else periods.push({ from, to, days, openCents, basisPoints });
  });
  // Half up: floor((2 × exact + divisor) / (2 × divisor)), exact being never negative.
  const cents = Number((2n * exact + DIVISOR) / (2n * DIVISOR));
  return { cents, periods };
}

function check({ timeline: { openCents, changes }, defaultSince, until }: InterestInput) {
  if (!Number.isSafeInteger(openCents) || openCents < 0) throw new RangeError(`not an open amount: ${openCents}`);
  for (const day of [defaultSince, until, ...changes.map((change) => change.on)])
    if (!isDay(day)) throw new RangeError(`not a day: ${day}`);
  for (const { cents } of changes) if (!Number.isSafeInteger(cents)) throw new RangeError(`not an amount: ${cents}`);
}
