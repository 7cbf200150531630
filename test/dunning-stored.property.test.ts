import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_DUNNING_DAYS,
  type InvoiceDunning,
  notYetDunned,
  parseDunningDays,
  runFor,
} from "../src/domain/dunning";
import { defaultSinceOf, reminderFigures } from "../src/domain/dunning-reminder";
import { addDays } from "../src/domain/time";
import { overdueInvoice, runDunning, storedReminders } from "./support/dunning";
import { naiveInterestCents } from "./support/naive-interest";

// CONTRACT part 18 on the stored path: random sequences of run days (in order, repeated, out of order,
// skipped) through the jobs Worker's cron and dunning queue, some runs stopping halfway (every chunk
// lost), for a business or a consumer buyer. What is stored is exactly what the pure schedule
// (domain/dunning.ts) gives for the runs that got through: each level once, in order, on its day, its
// interest the naive computation's to the cent, the fee once and never a consumer's; invoice.overdue and
// each reminder.created once; and every run again, in any order, changes nothing.

const days = parseDunningDays(DEFAULT_DUNNING_DAYS) as Exclude<ReturnType<typeof parseDunningDays>, "off">;

const countEvents = async (type: string, invoiceId: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM events WHERE type = ? AND json_extract(data, '$.id') = ?")
    .bind(type, invoiceId)
    .first<{ n: number }>())!.n;

describe("the stored dunning, for any run days", () => {
  it("is the schedule's: each level once, in order, on its day, interest to the cent; reruns change nothing", async () => {
    const runs = fc.array(
      fc.record({ offset: fc.integer({ min: -3, max: 75 }), lost: fc.integer({ min: 0, max: 9 }).map((n) => n < 3) }),
      { minLength: 1, maxLength: 9 },
    );
    const reached = new Set<number>();
    await fc.assert(
      fc.asyncProperty(fc.boolean(), runs, async (consumer, plan) => {
        const { invoice, due, gross } = await overdueInvoice({ consumer });
        const model: InvoiceDunning = notYetDunned(due);
        const issued: string[] = [];
        for (const { offset, lost } of plan) {
          const day = addDays(due, offset);
          await runDunning(day, {}, lost ? 1_000 : 0);
          if (lost) continue;
          const outcome = runFor(model, day, days);
          if (outcome.overdue) model.overdueSent = true;
          if (outcome.step?.kind === "reminder") {
            model.level = outcome.step.level;
            model.lastIssuedOn = day;
            issued.push(day);
          } else if (outcome.step?.kind === "end") model.ended = true;
          if (model.lastRunOn === null || day > model.lastRunOn) model.lastRunOn = day;
        }
        const check = async () => {
          const rows = await storedReminders(invoice.id);
          expect(rows.map((r) => [r.level, r.issued_on])).toStrictEqual(issued.map((day, i) => [i + 1, day]));
          const since = issued[0] ? defaultSinceOf(issued[0]) : null;
          for (const row of rows) {
            const level = row.level as 1 | 2 | 3;
            const day = row.issued_on as string;
            const figures = reminderFigures({
              level,
              issuedOn: day,
              language: "de",
              consumer,
              defaultSince: level === 1 ? null : since,
              timeline: { openCents: gross, changes: [] },
            });
            expect(row).toMatchObject({
              default_since: figures.defaultSince,
              open_amount: gross,
              interest_amount:
                level === 1 ? 0 : naiveInterestCents({ openCents: gross, changes: [] }, since!, day, consumer),
              fee_amount: level >= 2 && !consumer ? 4000 : 0,
              total_amount: figures.totalCents,
              interest_percent: figures.interestPercent,
            });
          }
          expect(await countEvents("invoice.overdue", invoice.id)).toBe(model.overdueSent ? 1 : 0);
          const created = await env.DB.prepare(
            "SELECT count(*) AS n FROM events WHERE type = 'reminder.created' AND json_extract(data, '$.invoice_id') = ?",
          )
            .bind(invoice.id)
            .first<{ n: number }>();
          expect(created!.n).toBe(issued.length);
          const { dunning_state } = (await env.DB.prepare("SELECT dunning_state FROM invoices WHERE id = ?")
            .bind(invoice.id)
            .first<{ dunning_state: string }>())!;
          expect(dunning_state).toBe(model.ended ? "ended" : model.overdueSent ? "active" : "none");
        };
        await check();
        // Every run again, the last first: a day no later than the last run changes nothing.
        for (const { offset } of [...plan].reverse())
          if (model.lastRunOn !== null && addDays(due, offset) <= model.lastRunOn)
            await runDunning(addDays(due, offset));
        await check();
        reached.add(model.ended ? 4 : issued.length);
      }),
      { numRuns: 25 },
    );
    // The runs must have reached past level 1: a property of quiet invoices alone proves little.
    expect(
      [...reached].some((n) => n >= 2),
      JSON.stringify([...reached]),
    ).toBe(true);
  }, 240_000);
});
