// A reminder's figures (docs/api.md part 18), pure: its title in the invoice's language, pay_by, the date
// default began, the open amount on issued_on, the interest (interest.ts) and the flat fee of § 288 (5)
// BGB. Level 1 (the payment reminder) claims nothing: its delivery puts the buyer in default, which
// begins the day after its issued_on. Levels 2 and 3 claim interest from then to their issued_on, and a
// buyer who is not a consumer owes the EUR 40.00 fee once per invoice: level 3 repeats level 2's fee (the
// figures are what is claimed so far, in total), never adds a second one. None of it carries VAT.
import type { DocumentLanguage } from "./einvoice";
import { defaultRateOn, type InterestPeriod, interestOf, type OpenAmountTimeline, openOn, percentOf } from "./interest";
import { addDays } from "./time";

/** § 288 (5) BGB: the flat fee a debtor who is not a consumer owes, in cents. */
export const FLAT_FEE_CENTS = 4000;
/** Days from issued_on to pay_by. */
export const PAY_BY_DAYS = 10;

export const REMINDER_TITLES: Record<DocumentLanguage, readonly [string, string, string]> = {
  de: ["Zahlungserinnerung", "1. Mahnung", "Letzte Mahnung"],
  en: ["Payment reminder", "Reminder", "Final reminder"],
};

/** Default begins the day after the level-1 reminder's issued_on (§ 286 (1) BGB). */
export const defaultSinceOf = (level1IssuedOn: string): string => addDays(level1IssuedOn, 1);

interface ReminderInput {
  level: 1 | 2 | 3;
  issuedOn: string;
  language: DocumentLanguage;
  consumer: boolean;
  /** The day default began (defaultSinceOf); null for level 1. */
  defaultSince: string | null;
  /** The invoice's open amount over time. */
  timeline: OpenAmountTimeline;
}

export interface ReminderFigures {
  level: 1 | 2 | 3;
  title: string;
  /** Whether the buyer is a consumer (§ 13 BGB): 5 points instead of 9, and no fee. */
  consumer: boolean;
  issuedOn: string;
  payBy: string;
  defaultSince: string | null;
  /** The invoice's open amount on issued_on. */
  openCents: number;
  /** The default rate of issued_on, e.g. "10.27"; null on level 1. */
  interestPercent: string | null;
  interestCents: number;
  feeCents: number;
  /** Open amount + interest + fee: what the reminder asks for. */
  totalCents: number;
  /** How the interest is made up (empty on level 1). */
  interestPeriods: InterestPeriod[];
}

export function reminderFigures(input: ReminderInput): ReminderFigures {
  const { level, issuedOn, language, consumer, defaultSince, timeline } = input;
  if ((level === 1) !== (defaultSince === null))
    throw new RangeError(`a level-${level} reminder ${level === 1 ? "has no" : "needs its"} day default began`);
  const openCents = openOn(timeline, issuedOn);
  const interest =
    defaultSince === null
      ? { cents: 0, periods: [] }
      : interestOf({ timeline, defaultSince, until: issuedOn, consumer });
  const feeCents = level >= 2 && !consumer ? FLAT_FEE_CENTS : 0;
  return {
    level,
    title: REMINDER_TITLES[language][level - 1]!,
    consumer,
    issuedOn,
    payBy: addDays(issuedOn, PAY_BY_DAYS),
    defaultSince,
    openCents,
    interestPercent: level === 1 ? null : percentOf(defaultRateOn(issuedOn, consumer)),
    interestCents: interest.cents,
    feeCents,
    totalCents: openCents + interest.cents + feeCents,
    interestPeriods: interest.periods,
  };
}
