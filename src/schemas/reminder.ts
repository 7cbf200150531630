import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import * as z from "zod/mini";
import { formatCents } from "../domain/money";
import { date, dateTime, money } from "./formats";
import { resource } from "./resource";

// docs/api.md part 18: a reminder of an overdue invoice, one per invoice and level, made by the daily
// dunning run (src/jobs/dunning.ts) with its PDF (kept in R2 under `reminders/<id>.pdf`) and its
// delivery. Its figures are fixed when it is made: amounts in cents, the rate as the wire shows it.

export const reminders = sqliteTable(
  "reminders",
  {
    id: text("id").primaryKey(),
    invoiceId: text("invoice_id").notNull(),
    /** The invoice's customer: who may read it, whose events it makes. */
    customerId: text("customer_id").notNull(),
    invoiceNumber: text("invoice_number").notNull(),
    level: integer("level").$type<1 | 2 | 3>().notNull(),
    title: text("title").notNull(),
    issuedOn: text("issued_on").notNull(),
    payBy: text("pay_by").notNull(),
    defaultSince: text("default_since"),
    openAmount: integer("open_amount").notNull(),
    interestPercent: text("interest_percent"),
    interestAmount: integer("interest_amount").notNull(),
    feeAmount: integer("fee_amount").notNull(),
    totalAmount: integer("total_amount").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    // Never a level twice: a run that resumes, or two at once, cannot make a second one.
    uniqueIndex("reminders_invoice_level").on(t.invoiceId, t.level),
    index("reminders_invoice_created").on(t.invoiceId, t.createdAt, t.id),
  ],
);

export type ReminderRow = typeof reminders.$inferSelect;

const cents = (value: number) => formatCents(value);

const reminder = resource<ReminderRow>()(
  "Reminder",
  (f) => ({
    id: f.column(z.string),
    type: f.from(
      () => z.literal("reminder"),
      () => "reminder" as const,
    ),
    invoice_id: f.column(z.string),
    invoice_number: f.column(z.string),
    level: f.column(() => z.union([z.literal(1), z.literal(2), z.literal(3)])),
    title: f.column(() =>
      z.string().register(z.globalRegistry, {
        description: "Zahlungserinnerung, 1. Mahnung, Letzte Mahnung (or in English), in the invoice's language.",
      }),
    ),
    issued_on: f.column(date),
    pay_by: f.column(() => date().register(z.globalRegistry, { description: "issued_on + 10 days." })),
    default_since: f.column(() =>
      z.nullable(date()).register(z.globalRegistry, {
        description: "The first day of default (the day after the level-1 reminder); null on level 1.",
      }),
    ),
    open_amount: f.from(money, (row) => cents(row.openAmount)),
    interest_percent: f.column(() =>
      z.nullable(z.string()).register(z.globalRegistry, {
        description:
          "The default rate of issued_on (base rate + 9, or + 5 for a consumer), e.g. 10.27; null on level 1.",
        examples: ["10.27"],
      }),
    ),
    interest_amount: f.from(
      () => money().register(z.globalRegistry, { description: "Interest claimed so far, in total." }),
      (row) => cents(row.interestAmount),
    ),
    fee_amount: f.from(
      () =>
        money().register(z.globalRegistry, {
          description: "The EUR 40.00 of § 288 (5) BGB, once, not from a consumer.",
        }),
      (row) => cents(row.feeAmount),
    ),
    total_amount: f.from(
      () => money().register(z.globalRegistry, { description: "open_amount + interest_amount + fee_amount." }),
      (row) => cents(row.totalAmount),
    ),
    created_at: f.column(dateTime),
  }),
  "A reminder of an overdue invoice (docs/api.md part 18): its level, dates and the sum it asks for.",
);

export const Reminder = reminder.schema;
export const toReminder = reminder.show;
