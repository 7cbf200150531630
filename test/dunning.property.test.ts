import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type DunningDays, type InvoiceDunning, notYetDunned, runFor } from "../src/domain/dunning";
import { defaultSinceOf, type ReminderFigures, reminderFigures } from "../src/domain/dunning-reminder";
import { addDays } from "../src/domain/time";
import { naiveInterestCents } from "./support/naive-interest";

// CONTRACT part 18, never wrong and never twice: random invoices (either payment method, business or
// consumer), random histories of payments (whole, partial, booked late), returns (AM04 and others),
// holds, releases and cancellations, and runs for random days (in order, repeated, out of order, days
// skipped), the run's outcomes applied as the service applies them. Whatever happens, no invoice gets a
// level twice or out of order, or before its days; no paid, cancelled or held invoice gets a reminder;
// a direct debit is dunned only after a return other than AM04; the fee is claimed at most once and
// never from a consumer; invoice.overdue comes once; nothing follows the end; and every reminder's
// interest is the naive computation's (test/support/naive-interest.ts) of what was known when it was
// issued, to the cent.

type Action =
  | { kind: "wait"; days: number }
  | { kind: "run"; back: number }
  | { kind: "pay"; percent: number; late: number }
  | { kind: "return"; which: number; reason: "AM04" | "MD06" }
  | { kind: "hold" }
  | { kind: "release" }
  | { kind: "cancel" };

/** Actions with these weights: waits, runs, payments, returns, holds and releases, cancellations. */
const actionOf = ([wait, run, pay, back, hold, cancel]: number[]) =>
  fc.oneof(
    { weight: wait!, arbitrary: fc.record({ kind: fc.constant("wait"), days: fc.integer({ min: 0, max: 12 }) }) },
    { weight: run!, arbitrary: fc.record({ kind: fc.constant("run"), back: fc.oneof(fc.constant(0), fc.nat(20)) }) },
    {
      weight: pay!,
      arbitrary: fc.record({
        kind: fc.constant("pay"),
        percent: fc.oneof(fc.constant(100), fc.integer({ min: 1, max: 100 })),
        late: fc.oneof(fc.constant(0), fc.nat(15)),
      }),
    },
    {
      weight: back!,
      arbitrary: fc.record({ kind: fc.constant("return"), which: fc.nat(5), reason: fc.constantFrom("AM04", "MD06") }),
    },
    { weight: hold!, arbitrary: fc.constantFrom({ kind: "hold" } as const, { kind: "release" } as const) },
    { weight: cancel!, arbitrary: fc.constant({ kind: "cancel" } as const) },
  ) as fc.Arbitrary<Action>;

/** Histories of three tempers: quiet (runs and waits, a dispute now and then), busy, and chaotic. */
const history = fc.oneof(
  fc.array(actionOf([20, 24, 0, 0, 1, 0]), { minLength: 40, maxLength: 150, size: "max" }),
  fc.array(actionOf([20, 24, 2, 2, 3, 0]), { minLength: 40, maxLength: 150, size: "max" }),
  fc.array(actionOf([4, 6, 2, 1, 1, 1]), { maxLength: 80, size: "max" }),
);

interface Invoice {
  dueOn: string;
  gross: number;
  consumer: boolean;
  method: "bank_transfer" | "direct_debit";
  language: "de" | "en";
}
const invoice: fc.Arbitrary<Invoice> = fc.record({
  dueOn: fc.integer({ min: 0, max: 730 }).map((n) => addDays("2024-03-01", n)),
  gross: fc.integer({ min: 1, max: 100_000_000 }),
  consumer: fc.boolean(),
  method: fc.constantFrom("bank_transfer", "direct_debit"),
  language: fc.constantFrom("de", "en"),
});
const aDays = fc.integer({ min: 1, max: 20 });
const dunningDays: fc.Arbitrary<DunningDays> = fc.tuple(aDays, aDays, aDays, aDays);

const later = (a: string, b: string | null) => (b !== null && b > a ? b : a);

function replay({ dueOn, gross, consumer, method, language }: Invoice, days: DunningDays, actions: Action[]) {
  const bookedOn = addDays(dueOn, -14);
  let today = bookedOn;
  let state: "open" | "paid" | "cancelled" = "open";
  const payments: { on: string; cents: number; returnedOn: string | null }[] = [];
  const dunning: InvoiceDunning = notYetDunned(method === "bank_transfer" ? dueOn : null);
  let defaultSince: string | null = null;
  const reminders: ReminderFigures[] = [];
  let overdues = 0;
  let dunnableReturn = false;

  const timeline = () => ({
    openCents: gross,
    changes: payments.flatMap((p) => [
      { on: p.on, cents: -p.cents },
      ...(p.returnedOn ? [{ on: p.returnedOn, cents: p.cents }] : []),
    ]),
  });
  const open = () => Math.max(0, gross - payments.reduce((sum, p) => sum + (p.returnedOn ? 0 : p.cents), 0));

  for (const step of actions) {
    if (step.kind === "wait") today = addDays(today, step.days);
    else if (step.kind === "pay" && state === "open") {
      const cents = Math.max(1, Math.floor((open() * step.percent) / 100));
      payments.push({ on: later(addDays(today, -step.late), bookedOn), cents, returnedOn: null });
      if (open() === 0) state = "paid";
    } else if (step.kind === "return") {
      const payment = payments.filter((p) => p.returnedOn === null)[step.which];
      if (!payment || state === "cancelled") continue;
      payment.returnedOn = today;
      const reopened = state === "paid";
      state = "open";
      // A return other than AM04 leaves a direct debit not collectable: dunned from the return's day.
      if (method === "direct_debit" && step.reason !== "AM04" && dunning.start === null) {
        dunning.start = today;
        dunnableReturn = true;
      } else if (reopened) dunning.restartOn = later(today, dunning.restartOn);
    } else if (step.kind === "hold" && state === "open") dunning.held = true;
    else if (step.kind === "release" && state === "open" && dunning.held) {
      dunning.held = false;
      dunning.restartOn = later(today, dunning.restartOn);
    } else if (step.kind === "cancel" && state === "open") state = "cancelled";
    else if (step.kind === "run") {
      const day = addDays(today, -step.back);
      dunning.settled = state !== "open" || open() === 0;
      const before = { ...dunning };
      const outcome = runFor(dunning, day, days);
      if (outcome.overdue || outcome.step) {
        expect(before.lastRunOn === null || day > before.lastRunOn).toBe(true);
        expect(state === "open" && open() > 0 && !dunning.held && !dunning.ended).toBe(true);
        expect(dunning.start).not.toBeNull();
      }
      if (outcome.overdue) {
        expect(dunning.overdueSent).toBe(false);
        expect(day > dunning.start!).toBe(true);
        overdues++;
        dunning.overdueSent = true;
      }
      if (outcome.step?.kind === "reminder") {
        const { level } = outcome.step;
        expect(level).toBe(dunning.level + 1);
        expect(dunning.overdueSent).toBe(true);
        // Its days after the later of its usual start and a release or reopening.
        const usual = level === 1 ? dunning.start! : dunning.lastIssuedOn!;
        expect(day >= addDays(later(usual, dunning.restartOn), days[level - 1]!)).toBe(true);
        const figures = reminderFigures({
          level,
          issuedOn: day,
          language,
          consumer,
          defaultSince,
          timeline: timeline(),
        });
        reminders.push(figures);
        expect(figures.feeCents).toBe(level >= 2 && !consumer ? 4000 : 0);
        expect(figures.interestCents).toBe(
          defaultSince === null ? 0 : naiveInterestCents(timeline(), defaultSince, day, consumer),
        );
        expect(figures.totalCents).toBe(figures.openCents + figures.interestCents + figures.feeCents);
        dunning.level = level;
        dunning.lastIssuedOn = day;
        if (level === 1) defaultSince = defaultSinceOf(day);
      } else if (outcome.step?.kind === "end") {
        expect(dunning.level).toBe(3);
        expect(day >= addDays(later(dunning.lastIssuedOn!, dunning.restartOn), days[3])).toBe(true);
        dunning.ended = true;
      }
      dunning.lastRunOn = later(day, dunning.lastRunOn);
    }
  }
  return { reminders, overdues, dunnableReturn, ended: dunning.ended };
}

describe("dunning, for any history", () => {
  it("never gives a level twice, out of order, to a paid, cancelled or held invoice; the fee once, never a consumer's", () => {
    // How far the histories went: the property must see every level and the end, not only quiet invoices.
    const reached = [0, 0, 0, 0, 0];
    fc.assert(
      fc.property(invoice, dunningDays, history, (inv, days, actions) => {
        const { reminders, overdues, dunnableReturn, ended } = replay(inv, days, actions);
        expect(reminders.map((r) => r.level)).toStrictEqual([1, 2, 3].slice(0, reminders.length));
        for (let i = 1; i < reminders.length; i++)
          expect(reminders[i]!.issuedOn > reminders[i - 1]!.issuedOn).toBe(true);
        const fees = new Set(reminders.filter((r) => r.level >= 2).map((r) => r.feeCents));
        expect([...fees]).toStrictEqual(reminders.length < 2 ? [] : [inv.consumer ? 0 : 4000]);
        expect(overdues).toBeLessThanOrEqual(1);
        if (reminders.length > 0) expect(overdues).toBe(1);
        if (inv.method === "direct_debit" && !dunnableReturn)
          expect([reminders.length, overdues]).toStrictEqual([0, 0]);
        if (ended) expect(reminders.length).toBe(3);
        reached[ended ? 4 : reminders.length]!++;
      }),
      { numRuns: 400 },
    );
    for (const count of reached) expect(count, JSON.stringify(reached)).toBeGreaterThan(0);
  });

  it("reaches every level and the end when nothing stops it", () => {
    // A guard that the property above exercises what it claims: with daily runs and no payment, an
    // invoice goes through all levels to the end.
    const actions: Action[] = Array.from({ length: 200 }, (_, i) =>
      i % 2 ? { kind: "run", back: 0 } : { kind: "wait", days: 1 },
    );
    const inv: Invoice = {
      dueOn: "2025-06-06",
      gross: 100_000,
      consumer: false,
      method: "bank_transfer",
      language: "de",
    };
    const { reminders, overdues, ended } = replay(inv, [7, 14, 14, 14], actions);
    expect(reminders.map((r) => [r.level, r.issuedOn, r.feeCents])).toStrictEqual([
      [1, "2025-06-13", 0],
      [2, "2025-06-27", 4000],
      [3, "2025-07-11", 4000],
    ]);
    expect([overdues, ended]).toStrictEqual([1, true]);
  });
});
