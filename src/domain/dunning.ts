// The dunning schedule (docs/api.md part 18), pure: what one day's run does for one invoice, from the
// invoice's dunning state. `invoice.overdue` comes the day after the start (due_on, or for a direct debit
// the booking date of the return that left it open and not collectable), once, and is no level; level 1
// is DUNNING_DAYS[0] days after the start, levels 2 and 3 DUNNING_DAYS[1] and [2] days after the
// previous reminder's issued_on, the end DUNNING_DAYS[3] days after level 3. A run takes at most the next
// level, never skipping one; after a release (or a return reopening the invoice) the next step is due its
// days after the later of its usual start and that day. A run for a day no later than the invoice's last
// run, and any run for a held, settled or ended invoice, does nothing.
import { addDays, dayIn } from "./time";

/** Days to level 1 (from the start), level 2, level 3 (from the previous reminder) and the end. */
export type DunningDays = readonly [number, number, number, number];

export const DEFAULT_DUNNING_DAYS = "7,14,14,14";
const DAYS = /^([1-9][0-9]{0,2}),([1-9][0-9]{0,2}),([1-9][0-9]{0,2}),([1-9][0-9]{0,2})$/;

/** DUNNING_DAYS that is neither four positive whole numbers nor "off": the run does not start. */
export class DunningDaysMalformed extends Error {
  constructor(text: string) {
    super(
      `DUNNING_DAYS must be four comma-separated positive whole numbers of days up to 999, without spaces ` +
        `(default "${DEFAULT_DUNNING_DAYS}"), or "off" to disable dunning; it is ${JSON.stringify(text)}`,
    );
    this.name = "DunningDaysMalformed";
  }
}

/** The variable's days, or "off"; unset or empty means the default. */
export function parseDunningDays(text: string | undefined): DunningDays | "off" {
  const value = text === undefined || text === "" ? DEFAULT_DUNNING_DAYS : text;
  if (value === "off") return "off";
  const match = DAYS.exec(value);
  if (!match) throw new DunningDaysMalformed(value);
  return [Number(match[1]), Number(match[2]), Number(match[3]), Number(match[4])];
}

/** The business day a Cron Trigger's run is for: its scheduledTime's calendar day in BUSINESS_TIME_ZONE. */
export const runDayOf = (scheduledTime: number, zone: string): string => dayIn(new Date(scheduledTime), zone);

type DunningLevel = 0 | 1 | 2 | 3;

/** What a run needs to know of an invoice. */
export interface InvoiceDunning {
  /**
   * due_on; for a direct debit the booking date of a return other than AM04 (null while the debit is
   * the seller's to collect).
   */
  start: string | null;
  /** The last reminder's level, 0 before the first. */
  level: DunningLevel;
  /** The last reminder's issued_on (null at level 0). */
  lastIssuedOn: string | null;
  /** The last release from a hold, or the booking date of a return that reopened the invoice: counted from. */
  restartOn: string | null;
  held: boolean;
  /** Paid, cancelled, or nothing open: dunning stops. */
  settled: boolean;
  ended: boolean;
  /** The last run day that reached the invoice. */
  lastRunOn: string | null;
  overdueSent: boolean;
}

/** An invoice no run has reached yet, its steps counted from `start`. */
export const notYetDunned = (start: string | null): InvoiceDunning => ({
  start,
  level: 0,
  lastIssuedOn: null,
  restartOn: null,
  held: false,
  settled: false,
  ended: false,
  lastRunOn: null,
  overdueSent: false,
});

type DunningStep = { kind: "reminder"; level: 1 | 2 | 3 } | { kind: "end" };

interface RunOutcome {
  /** Emit invoice.overdue (before the step, when both come). */
  overdue: boolean;
  step: DunningStep | null;
}

const NOTHING: RunOutcome = { overdue: false, step: null };

const later = (a: string, b: string | null) => (b !== null && b > a ? b : a);

/** The day the next level, or the end after level 3, is due; null when none is (held, settled, ended, not dunned). */
export function nextStepOn(invoice: InvoiceDunning, days: DunningDays): string | null {
  if (invoice.start === null || invoice.held || invoice.settled || invoice.ended) return null;
  const from = invoice.level === 0 ? invoice.start : invoice.lastIssuedOn;
  if (from === null) throw new Error(`dunning at level ${invoice.level} without the last reminder's day`);
  return addDays(later(from, invoice.restartOn), days[invoice.level]);
}

/** What the run for `day` does for the invoice. */
export function runFor(invoice: InvoiceDunning, day: string, days: DunningDays): RunOutcome {
  if (invoice.lastRunOn !== null && day <= invoice.lastRunOn) return NOTHING;
  const due = nextStepOn(invoice, days);
  if (due === null || invoice.start === null) return NOTHING;
  const overdue = !invoice.overdueSent && day > invoice.start;
  if (day < due) return { overdue, step: null };
  const step: DunningStep =
    invoice.level === 3 ? { kind: "end" } : { kind: "reminder", level: (invoice.level + 1) as 1 | 2 | 3 };
  return { overdue, step };
}
