import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BASE_RATES, baseRateOn } from "../src/domain/base-rates";
import { defaultRateOn, INTEREST_MARGIN, interestOf, openOn, percentOf } from "../src/domain/interest";
import { aDay, CALENDAR, naiveInterestCents, PUBLISHED } from "./support/naive-interest";

// CONTRACT part 18's default interest (src/domain/interest.ts) and the base rates it is counted from
// (src/domain/base-rates.ts): the table in order, one entry a half-year and no gap, and as the
// Bundesbank published it; the worked example; payments counting from their booking day; and, for random
// open amounts, payments, returns and periods across half-years and leap days, the same cents as a
// naive day-by-day sum of exact fractions (test/support/naive-interest.ts), with its own calendar and rates.

describe("the base rates (§ 247 BGB)", () => {
  it("are the published rates, in basis points", () => {
    expect(BASE_RATES.map((rate) => [rate.from, percentOf(rate.basisPoints)])).toStrictEqual(PUBLISHED);
    for (const rate of BASE_RATES) expect(Number.isSafeInteger(rate.basisPoints)).toBe(true);
  });

  it("are ordered by half-year, each starting 1 January or 1 July, with no gap", () => {
    for (const [i, { from }] of BASE_RATES.entries()) {
      expect(from).toMatch(/^\d{4}-(01|07)-01$/);
      if (i === 0) continue;
      const previous = BASE_RATES[i - 1]!.from;
      const [year, month] = [Number(previous.slice(0, 4)), previous.slice(5, 7)];
      expect(from).toBe(month === "01" ? `${year}-07-01` : `${year + 1}-01-01`);
    }
  });

  it("apply from their first day, and the last known one after the last known half-year", () => {
    expect(baseRateOn("2024-01-01")).toBe(362);
    expect(baseRateOn("2024-06-30")).toBe(362);
    expect(baseRateOn("2024-07-01")).toBe(337);
    expect(baseRateOn("2025-06-30")).toBe(227);
    expect(baseRateOn("2025-07-01")).toBe(127);
    expect(baseRateOn("2031-12-31")).toBe(127);
    expect(() => baseRateOn("2023-12-31")).toThrow(
      "no base rate is known for 2023-12-31: BASE_RATES begins 2024-01-01",
    );
  });

  it("plus 9 points between businesses, plus 5 for a consumer (§ 288 (1) and (2) BGB)", () => {
    expect(INTEREST_MARGIN).toStrictEqual({ consumer: 500, business: 900 });
    expect(percentOf(defaultRateOn("2025-07-10", false))).toBe("10.27");
    expect(percentOf(defaultRateOn("2025-07-10", true))).toBe("6.27");
    expect(percentOf(defaultRateOn("2024-03-01", false))).toBe("12.62");
    expect(percentOf(-88)).toBe("-0.88");
    expect(percentOf(5)).toBe("0.05");
  });
});

describe("default interest (§§ 288, 289 BGB)", () => {
  it("is the contract's worked example: 3.0877 + 2.8137 = 5.90", () => {
    const interest = interestOf({
      timeline: { openCents: 100_000, changes: [] },
      defaultSince: "2025-06-21",
      until: "2025-07-10",
      consumer: false,
    });
    expect(interest).toStrictEqual({
      cents: 590,
      periods: [
        { from: "2025-06-21", to: "2025-06-30", days: 10, openCents: 100_000, basisPoints: 1127 },
        { from: "2025-07-01", to: "2025-07-10", days: 10, openCents: 100_000, basisPoints: 1027 },
      ],
    });
  });

  it("counts a payment from the day it is booked, and a return from its day", () => {
    // 1,000.00 on 2025-07-01..04 (4 days), 400.00 from the payment on 05 to 07 (3 days), 900.00 from the
    // return on 08 to 10 (3 days), all at 10.27 %: (4 × 100000 + 3 × 40000 + 3 × 90000) × 1027 / 3650000
    // = 222.286 cents.
    const timeline = {
      openCents: 100_000,
      changes: [
        { on: "2025-07-08", cents: 50_000 },
        { on: "2025-07-05", cents: -60_000 },
      ],
    };
    expect(interestOf({ timeline, defaultSince: "2025-07-01", until: "2025-07-10", consumer: false })).toStrictEqual({
      cents: 222,
      periods: [
        { from: "2025-07-01", to: "2025-07-04", days: 4, openCents: 100_000, basisPoints: 1027 },
        { from: "2025-07-05", to: "2025-07-07", days: 3, openCents: 40_000, basisPoints: 1027 },
        { from: "2025-07-08", to: "2025-07-10", days: 3, openCents: 90_000, basisPoints: 1027 },
      ],
    });
    expect(openOn(timeline, "2025-07-04")).toBe(100_000);
    expect(openOn(timeline, "2025-07-05")).toBe(40_000);
    expect(openOn(timeline, "2025-07-08")).toBe(90_000);
  });

  it("earns nothing while nothing is open, never below zero, and nothing before default begins", () => {
    const timeline = {
      openCents: 10_000,
      changes: [
        { on: "2025-01-05", cents: -15_000 },
        { on: "2025-01-08", cents: 15_000 },
      ],
    };
    const interest = interestOf({ timeline, defaultSince: "2025-01-01", until: "2025-01-10", consumer: true });
    // 4 days and 3 days of 100.00 at 7.27 %: 7 × 10000 × 727 / 3650000 = 13.94 cents.
    expect(interest).toStrictEqual({
      cents: 14,
      periods: [
        { from: "2025-01-01", to: "2025-01-04", days: 4, openCents: 10_000, basisPoints: 727 },
        { from: "2025-01-08", to: "2025-01-10", days: 3, openCents: 10_000, basisPoints: 727 },
      ],
    });
    expect(openOn(timeline, "2025-01-06")).toBe(0);
    const none = interestOf({ timeline, defaultSince: "2025-01-11", until: "2025-01-10", consumer: false });
    expect(none).toStrictEqual({ cents: 0, periods: [] });
  });

  it("rounds half up once: half a cent up, just under it down", () => {
    // 365 days of x cents at r basis points is exactly x × r / 10000 cents; 2027 is at 10.27 %.
    const year = (openCents: number) =>
      interestOf({
        timeline: { openCents, changes: [] },
        defaultSince: "2027-01-01",
        until: "2027-12-31",
        consumer: false,
      }).cents;
    expect(year(5000)).toBe(514); // 513.5
    expect(year(1037)).toBe(106); // 106.4999
    expect(year(1000)).toBe(103); // 102.7
    expect(year(50)).toBe(5); // 5.135
  });

  it("refuses what is not a day or an amount", () => {
    const timeline = { openCents: 100, changes: [] };
    expect(() => interestOf({ timeline, defaultSince: "2025-02-30", until: "2025-03-01", consumer: false })).toThrow(
      "not a day: 2025-02-30",
    );
    expect(() =>
      interestOf({
        timeline: { openCents: -1, changes: [] },
        defaultSince: "2025-03-01",
        until: "2025-03-01",
        consumer: false,
      }),
    ).toThrow("not an open amount: -1");
    expect(() =>
      interestOf({
        timeline: { openCents: 1, changes: [{ on: "2025-03-01", cents: 0.5 }] },
        defaultSince: "2025-03-01",
        until: "2025-03-01",
        consumer: false,
      }),
    ).toThrow("not an amount: 0.5");
  });
});

describe("default interest, for any timeline", () => {
  it("is the naive day-by-day sum of exact fractions, rounded half up once, to the cent", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2_000_000_000 }),
        fc.array(fc.record({ on: aDay, cents: fc.integer({ min: -2_000_000_000, max: 2_000_000_000 }) }), {
          maxLength: 6,
        }),
        aDay,
        aDay,
        fc.boolean(),
        (openCents, changes, a, b, consumer) => {
          const [from, to] = a <= b ? [a, b] : [b, a];
          const { cents, periods } = interestOf({
            timeline: { openCents, changes },
            defaultSince: from,
            until: to,
            consumer,
          });
          expect(cents).toBe(naiveInterestCents({ openCents, changes }, from, to, consumer));
          // The periods account for every day with something open, in order, each within one half-year.
          for (const period of periods) {
            expect(period.from <= period.to && period.from >= from && period.to <= to).toBe(true);
            expect(period.openCents).toBeGreaterThan(0);
          }
          const open = CALENDAR.filter((day) => day >= from && day <= to).filter(
            (day) => openOn({ openCents, changes }, day) > 0,
          );
          expect(periods.reduce((sum, period) => sum + period.days, 0)).toBe(open.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
