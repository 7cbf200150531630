import { describe, expect, it } from "vitest";
import {
  DEFAULT_DUNNING_DAYS,
  type DunningDays,
  DunningDaysMalformed,
  type InvoiceDunning,
  nextStepOn,
  notYetDunned,
  parseDunningDays,
  runDayOf,
  runFor,
} from "../src/domain/dunning";
import {
  defaultSinceOf,
  FLAT_FEE_CENTS,
  PAY_BY_DAYS,
  REMINDER_TITLES,
  reminderFigures,
} from "../src/domain/dunning-reminder";

// CONTRACT part 18's schedule (src/domain/dunning.ts) and a reminder's figures
// (src/domain/dunning-reminder.ts), case by case; dunning.property.test.ts runs random histories.

const DAYS: DunningDays = [7, 14, 14, 14];

/** A bank-transfer invoice due 2025-06-06, never reminded, never run. */
const fresh: InvoiceDunning = notYetDunned("2025-06-06");

describe("DUNNING_DAYS", () => {
  it("defaults to 7,14,14,14 and reads four positive whole numbers, or off", () => {
    expect(DEFAULT_DUNNING_DAYS).toBe("7,14,14,14");
    expect(parseDunningDays(undefined)).toStrictEqual([7, 14, 14, 14]);
    expect(parseDunningDays("")).toStrictEqual([7, 14, 14, 14]);
    expect(parseDunningDays("1,2,3,999")).toStrictEqual([1, 2, 3, 999]);
    expect(parseDunningDays("off")).toBe("off");
  });

  it("refuses anything else, saying what it must be", () => {
    for (const text of ["7,14,14", "7,14,14,14,14", "0,14,14,14", "7,14,-1,14", "7, 14, 14, 14", "7,14,14,1000"].concat(
      ["07,14,14,14", "7.5,14,14,14", "OFF", "none", "7;14;14;14"],
    )) {
      expect(() => parseDunningDays(text), text).toThrow(DunningDaysMalformed);
    }
    expect(() => parseDunningDays("7,14")).toThrow(
      "DUNNING_DAYS must be four comma-separated positive whole numbers of days up to 999, without spaces " +
        '(default "7,14,14,14"), or "off" to disable dunning; it is "7,14"',
    );
  });
});

describe("the run's business day", () => {
  it("is the scheduledTime's calendar day in BUSINESS_TIME_ZONE", () => {
    // 05:30 UTC is 06:30 or 07:30 in Berlin: the same day; 23:30 UTC on 31 December is 1 January there.
    expect(runDayOf(Date.parse("2025-07-10T05:30:00Z"), "Europe/Berlin")).toBe("2025-07-10");
    expect(runDayOf(Date.parse("2025-12-31T23:30:00Z"), "Europe/Berlin")).toBe("2026-01-01");
    expect(runDayOf(Date.parse("2025-12-31T23:30:00Z"), "UTC")).toBe("2025-12-31");
    expect(runDayOf(Date.parse("2025-07-10T05:30:00Z"), "America/New_York")).toBe("2025-07-10");
    expect(runDayOf(Date.parse("2025-07-10T03:30:00Z"), "America/New_York")).toBe("2025-07-09");
  });
});

describe("the schedule", () => {
  it("sends invoice.overdue the day after the start, whatever the levels' days", () => {
    expect(runFor(fresh, "2025-06-06", DAYS)).toStrictEqual({ overdue: false, step: null });
    expect(runFor(fresh, "2025-06-07", DAYS)).toStrictEqual({ overdue: true, step: null });
    expect(runFor({ ...fresh, overdueSent: true }, "2025-06-08", DAYS)).toStrictEqual({ overdue: false, step: null });
    // With one day to level 1, both come on the same run: the event first.
    expect(runFor(fresh, "2025-06-07", [1, 1, 1, 1])).toStrictEqual({
      overdue: true,
      step: { kind: "reminder", level: 1 },
    });
  });

  it("reminds at level 1 DUNNING_DAYS[0] days after the start, the next levels counted from the previous reminder", () => {
    const sent = { ...fresh, overdueSent: true };
    expect(nextStepOn(sent, DAYS)).toBe("2025-06-13");
    expect(runFor(sent, "2025-06-12", DAYS).step).toBeNull();
    expect(runFor(sent, "2025-06-13", DAYS).step).toStrictEqual({ kind: "reminder", level: 1 });
    // Level 1 issued late, on the 16th: level 2 counts from then.
    const one = { ...sent, level: 1, lastIssuedOn: "2025-06-16", lastRunOn: "2025-06-16" } as const;
    expect(nextStepOn(one, DAYS)).toBe("2025-06-30");
    expect(runFor(one, "2025-06-29", DAYS).step).toBeNull();
    expect(runFor(one, "2025-06-30", DAYS).step).toStrictEqual({ kind: "reminder", level: 2 });
    const three = { ...one, level: 3, lastIssuedOn: "2025-07-28" } as const;
    expect(runFor(three, "2025-08-10", DAYS).step).toBeNull();
    expect(runFor(three, "2025-08-11", DAYS).step).toStrictEqual({ kind: "end" });
  });

  it("takes only the next level when several are due: levels are never skipped", () => {
    expect(runFor({ ...fresh, overdueSent: true }, "2026-01-01", DAYS).step).toStrictEqual({
      kind: "reminder",
      level: 1,
    });
    const one = { ...fresh, overdueSent: true, level: 1, lastIssuedOn: "2025-06-13" } as const;
    expect(runFor(one, "2026-01-01", DAYS).step).toStrictEqual({ kind: "reminder", level: 2 });
  });

  it("does nothing for a day no later than the last run, nor for a held, settled or ended invoice", () => {
    const due = { ...fresh, overdueSent: true };
    const nothing = { overdue: false, step: null };
    expect(runFor({ ...due, lastRunOn: "2025-06-13" }, "2025-06-13", DAYS)).toStrictEqual(nothing);
    expect(runFor({ ...due, lastRunOn: "2025-06-14" }, "2025-06-13", DAYS)).toStrictEqual(nothing);
    expect(runFor({ ...due, lastRunOn: "2025-06-12" }, "2025-06-13", DAYS).step).toStrictEqual({
      kind: "reminder",
      level: 1,
    });
    expect(runFor({ ...fresh, held: true }, "2025-07-13", DAYS)).toStrictEqual(nothing);
    expect(runFor({ ...fresh, settled: true }, "2025-07-13", DAYS)).toStrictEqual(nothing);
    const ended = { ...due, level: 3, lastIssuedOn: "2025-07-11", ended: true } as const;
    expect(runFor(ended, "2025-09-01", DAYS)).toStrictEqual(nothing);
    for (const invoice of [{ ...fresh, held: true }, { ...fresh, settled: true }, ended])
      expect(nextStepOn(invoice, DAYS)).toBeNull();
  });

  it("counts the next step after a release from the later of its usual start and the release day", () => {
    const one = { ...fresh, overdueSent: true, level: 1, lastIssuedOn: "2025-06-13" } as const;
    // Released on the 20th: level 2 on 4 July, not on the 27th.
    expect(nextStepOn({ ...one, restartOn: "2025-06-20" }, DAYS)).toBe("2025-07-04");
    expect(runFor({ ...one, restartOn: "2025-06-20" }, "2025-07-03", DAYS).step).toBeNull();
    // Released before the usual start: the usual start.
    expect(nextStepOn({ ...one, restartOn: "2025-06-10" }, DAYS)).toBe("2025-06-27");
    // Level 0, released after the due day.
    expect(nextStepOn({ ...fresh, restartOn: "2025-06-20" }, DAYS)).toBe("2025-06-27");
  });

  it("dunns a direct debit only from a return that leaves it open: the return's booking date is its start", () => {
    const collecting = { ...fresh, start: null };
    expect(runFor(collecting, "2026-01-01", DAYS)).toStrictEqual({ overdue: false, step: null });
    expect(nextStepOn(collecting, DAYS)).toBeNull();
    const returned = { ...fresh, start: "2025-06-20" };
    expect(runFor(returned, "2025-06-21", DAYS)).toStrictEqual({ overdue: true, step: null });
    expect(nextStepOn(returned, DAYS)).toBe("2025-06-27");
  });
});

describe("a reminder's figures", () => {
  const timeline = { openCents: 100_000, changes: [] };

  it("level 1: the payment reminder, no charges, default from the next day", () => {
    const figures = reminderFigures({
      level: 1,
      issuedOn: "2025-06-20",
      language: "de",
      consumer: false,
      defaultSince: null,
      timeline,
    });
    expect(figures).toStrictEqual({
      level: 1,
      title: "Zahlungserinnerung",
      consumer: false,
      issuedOn: "2025-06-20",
      payBy: "2025-06-30",
      defaultSince: null,
      openCents: 100_000,
      interestPercent: null,
      interestCents: 0,
      feeCents: 0,
      totalCents: 100_000,
      interestPeriods: [],
    });
    expect(defaultSinceOf("2025-06-20")).toBe("2025-06-21");
    expect(PAY_BY_DAYS).toBe(10);
  });

  it("level 2 of the worked example: interest 5.90 at the rate of issued_on, the EUR 40.00 fee, total 1,045.90", () => {
    const figures = reminderFigures({
      level: 2,
      issuedOn: "2025-07-10",
      language: "en",
      consumer: false,
      defaultSince: "2025-06-21",
      timeline,
    });
    expect(figures).toMatchObject({
      title: "Reminder",
      payBy: "2025-07-20",
      defaultSince: "2025-06-21",
      openCents: 100_000,
      interestPercent: "10.27",
      interestCents: 590,
      feeCents: 4000,
      totalCents: 104_590,
    });
    expect(figures.interestPeriods.map((p) => [p.from, p.to, p.basisPoints])).toStrictEqual([
      ["2025-06-21", "2025-06-30", 1127],
      ["2025-07-01", "2025-07-10", 1027],
    ]);
    expect(FLAT_FEE_CENTS).toBe(4000);
  });

  it("level 3 repeats the fee once, brings the interest up to date; a consumer owes no fee and 5 points", () => {
    const changes = [{ on: "2025-07-15", cents: -50_000 }];
    const input = { level: 3, issuedOn: "2025-07-24", language: "de", defaultSince: "2025-06-21" } as const;
    const business = reminderFigures({ ...input, consumer: false, timeline: { ...timeline, changes } });
    // 10 days of 1,000.00 at 11.27 %, 14 days of 1,000.00 and 10 of 500.00 (paid from the 15th) at 10.27 %.
    const exact = (10 * 100_000 * 1127 + 14 * 100_000 * 1027 + 10 * 50_000 * 1027) / 3_650_000;
    expect(business).toMatchObject({
      title: "Letzte Mahnung",
      openCents: 50_000,
      interestPercent: "10.27",
      interestCents: Math.round(exact),
      feeCents: 4000,
      totalCents: 50_000 + Math.round(exact) + 4000,
    });
    const consumer = reminderFigures({ ...input, consumer: true, timeline: { ...timeline, changes } });
    expect(consumer).toMatchObject({ interestPercent: "6.27", feeCents: 0 });
    expect(consumer.interestCents).toBe(
      Math.round((10 * 100_000 * 727 + 14 * 100_000 * 627 + 10 * 50_000 * 627) / 3_650_000),
    );
  });

  it("is titled in the invoice's language, and refuses a default day that does not fit the level", () => {
    expect(REMINDER_TITLES).toStrictEqual({
      de: ["Zahlungserinnerung", "1. Mahnung", "Letzte Mahnung"],
      en: ["Payment reminder", "Reminder", "Final reminder"],
    });
    const base = { issuedOn: "2025-07-10", language: "de", consumer: false, timeline } as const;
    expect(() => reminderFigures({ ...base, level: 1, defaultSince: "2025-06-21" })).toThrow(
      "a level-1 reminder has no day default began",
    );
    expect(() => reminderFigures({ ...base, level: 2, defaultSince: null })).toThrow(
      "a level-2 reminder needs its day default began",
    );
  });
});
