import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import * as z from "zod/mini";
import { DUNNING_STATES } from "../domain/invoices";
import { formatCents } from "../domain/money";
import { date, dateTime, money, requestBody, requiredText } from "./formats";
import { named } from "./registry";
import { resource } from "./resource";

// docs/api.md part 18: an invoice's dunning. Its state on the invoice (invoices.dunning_state, which the
// accounts department's filters read) and the rest here, one row per invoice once the run or a hold
// first touched it; an invoice without a row is at level 0, not yet overdue.

export const dunnings = sqliteTable(
  "dunnings",
  {
    invoiceId: text("invoice_id").primaryKey(),
    customerId: text("customer_id").notNull(),
    /** What the steps count from: due_on, or for a direct debit the day of the return that left it open. */
    startOn: text("start_on"),
    /** The day the steps ran out (dunning.ended); kept under a hold, so that a release ends it again. */
    endedOn: text("ended_on"),
    /** The last reminder's level, 0 before the first. */
    level: integer("level").$type<0 | 1 | 2 | 3>().notNull().default(0),
    /** The day after the level-1 reminder's issued_on (§ 286 (1) BGB). */
    defaultSince: text("default_since"),
    /** The last reminder's issued_on. */
    lastIssuedOn: text("last_issued_on"),
    /** The last release from a hold: the next step counts from it when it is later. */
    restartOn: text("restart_on"),
    heldReason: text("held_reason"),
    /** The last run day that reached the invoice: a run for it or an earlier day changes nothing. */
    lastRunOn: text("last_run_on"),
    /** The day invoice.overdue was emitted (once). */
    overdueOn: text("overdue_on"),
    /**
     * The run's candidate index: the day something is next due for the open, active invoice; null when
     * held, ended or not open (drizzle/0015's trigger clears it when the invoice leaves `open`, and sets
     * it to 0000-01-01, due at once, when a return opens it again: the run then counts it anew).
     */
    nextOn: text("next_on"),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("dunnings_due").on(t.nextOn, t.invoiceId).where(sql`${t.nextOn} IS NOT NULL`)],
);

export type DunningRow = typeof dunnings.$inferSelect;

/** What the wire shows, from the invoice, its dunning row and DUNNING_DAYS (db/dunning.ts `dunningOf`). */
export interface DunningView {
  invoiceId: string;
  state: (typeof DUNNING_STATES)[number];
  level: 0 | 1 | 2 | 3;
  defaultSince: string | null;
  nextStepOn: string | null;
  heldReason: string | null;
  chargesAmount: number;
  updatedAt: string;
}

const dunning = resource<DunningView>()(
  "Dunning",
  (f) => ({
    type: f.from(
      () => z.literal("dunning"),
      () => "dunning" as const,
    ),
    invoice_id: f.column(z.string),
    state: f.column(() =>
      z.enum(DUNNING_STATES).register(z.globalRegistry, {
        description:
          "none: not yet overdue; active: overdue, at any level; held: a person stopped it; ended: the steps ran " +
          "out (handed to a person); settled: the invoice is paid or cancelled.",
      }),
    ),
    level: f.column(() => z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)])),
    default_since: f.column(() => z.nullable(date())),
    next_step_on: f.column(() =>
      z.nullable(date()).register(z.globalRegistry, {
        description: "The day the next level (or the end after level 3) is due; null when held, ended or settled.",
      }),
    ),
    held_reason: f.column(() => z.nullable(z.string())),
    charges_amount: f.from(
      () => money().register(z.globalRegistry, { description: "Interest and fees claimed so far." }),
      (row) => formatCents(row.chargesAmount),
    ),
    updated_at: f.column(dateTime),
  }),
  "An invoice's dunning (docs/api.md part 18): how far it is chased, and whether a person holds it.",
);

export const Dunning = dunning.schema;
export const toDunning = dunning.show;

/** PUT /invoices/{id}/dunning: hold (with a reason) or release. */
export const PutDunning = named(
  "PutDunning",
  requestBody({
    hold: z.boolean({ error: "must be true (hold) or false (release)" }),
    reason: z.optional(z.nullable(requiredText(500))),
  }),
);
