import { and, asc, eq, gt, inArray, isNotNull, lt, lte, or, sql } from "drizzle-orm";
import { dayIn } from "../domain/time";
import { type DunningDays, type InvoiceDunning, nextStepOn, notYetDunned } from "../domain/dunning";
import type { OpenAmountTimeline } from "../domain/interest";
import { dunnings, type DunningRow, type DunningView } from "../schemas/dunning";
import type { ScanKey } from "../jobs/dunning-messages";
import type { Database } from "./client";
import { compile, lazily, one, param, preparer } from "./compiled";
import { guarded } from "./guards";
import {
  billingProfiles,
  invoices,
  payments,
  type BillingProfileRow,
  type InvoiceRow,
  type PaymentRow,
} from "./schema";

// docs/api.md part 18: an invoice's dunning as stored (invoices.dunning_state and its `dunnings` row),
// the run's candidates (two indexed scans: open invoices not yet overdue by due day, and active ones by
// the day their next step is due), the chunk a run works on in one round trip, and the dunning as the
// wire shows it.

/**
 * Open invoices with something open, not yet overdue (dunning_state none), due before `day`: a bank
 * transfer, or a direct debit a return other than AM04 left not collectable. On invoices_dunning_new.
 */
export function scanNew(orm: Database, day: string, after: ScanKey | null, limit: number) {
  const i = invoices;
  const returned = sql`EXISTS (SELECT 1 FROM ${payments} WHERE ${payments.invoiceId} = ${i.id} AND ${
    payments.returnedAt
  } IS NOT NULL AND ${payments.returnReason} <> 'AM04')`;
  return (
    orm
      .select({ on: sql<string>`${i.dueOn}`, id: sql<string>`${i.id}` })
      // Named, since the accounts view's index on (dunning_state, created_at) looks as good to SQLite's
      // planner without statistics, and would sort every candidate.
      .from(sql`${i} INDEXED BY invoices_dunning_new`)
      .where(
        and(
          // Literals, not bound values: SQLite takes a partial index only where the query's own text implies its WHERE.
          eq(i.state, sql`'open'`),
          eq(i.dunningState, sql`'none'`),
          lt(i.dueOn, day),
          lt(i.allocatedAmount, sql`coalesce(${i.grossAmount}, 0)`),
          or(eq(i.paymentMethod, "bank_transfer"), returned),
          after ? or(gt(i.dueOn, after[0]), and(eq(i.dueOn, after[0]), gt(i.id, after[1]))) : undefined,
        ),
      )
      .orderBy(asc(i.dueOn), asc(i.id))
      .limit(limit)
  );
}

/**
 * Dunnings whose next step is due by `day` (their invoice open and active: the trigger and the run keep
 * it so). On dunnings_due.
 */
export function scanActive(orm: Database, day: string, after: ScanKey | null, limit: number) {
  const d = dunnings;
  return orm
    .select({ on: sql<string>`${d.nextOn}`, id: d.invoiceId })
    .from(d)
    .where(
      and(
        isNotNull(d.nextOn),
        lte(d.nextOn, day),
        after ? or(gt(d.nextOn, after[0]), and(eq(d.nextOn, after[0]), gt(d.invoiceId, after[1]))) : undefined,
      ),
    )
    .orderBy(asc(d.nextOn), asc(d.invoiceId))
    .limit(limit);
}

/** What the run reads of one invoice. */
export interface DunnedInvoice {
  invoice: InvoiceRow;
  dunning: DunningRow | undefined;
  payments: PaymentRow[];
  profile: BillingProfileRow | undefined;
}

/** The invoices `ids` (at most 90) with their dunning, payments and billing profile, in one round trip. */
export async function loadChunk(orm: Database, ids: readonly string[]): Promise<DunnedInvoice[]> {
  if (ids.length === 0) return [];
  const list = [...ids].slice(0, 90);
  const [rows, dunningRows, paymentRows, profileRows] = await orm.batch([
    orm.select().from(invoices).where(inArray(invoices.id, list)),
    orm.select().from(dunnings).where(inArray(dunnings.invoiceId, list)),
    orm.select().from(payments).where(inArray(payments.invoiceId, list)),
    orm
      .select()
      .from(billingProfiles)
      .where(
        inArray(
          billingProfiles.customerId,
          orm.select({ id: invoices.customerId }).from(invoices).where(inArray(invoices.id, list)),
        ),
      ),
  ]);
  return rows.map((invoice) => ({
    invoice,
    dunning: dunningRows.find((row) => row.invoiceId === invoice.id),
    payments: paymentRows.filter((p) => p.invoiceId === invoice.id),
    profile: profileRows.find((p) => p.customerId === invoice.customerId),
  }));
}

/**
 * The open amount over time from the invoice's payments: each counts from its booking day, a return
 * from the business day it was booked (its `returned_at` in BUSINESS_TIME_ZONE).
 */
export function timelineOf(invoice: InvoiceRow, rows: readonly PaymentRow[], zone: string): OpenAmountTimeline {
  return {
    openCents: invoice.grossAmount ?? 0,
    changes: rows.flatMap((p) => [
      { on: p.bookedOn, cents: -p.amount },
      ...(p.returnedAt ? [{ on: dayIn(new Date(p.returnedAt), zone), cents: p.amount }] : []),
    ]),
  };
}

/** The returns of the invoice's payments, by day, oldest first. */
const returnsOf = (rows: readonly PaymentRow[], zone: string) =>
  rows
    .filter((p) => p.returnedAt !== null)
    .map((p) => ({ on: dayIn(new Date(p.returnedAt!), zone), reason: p.returnReason ?? "", payment: p }))
    .sort((a, b) => (a.on < b.on ? -1 : a.on > b.on ? 1 : 0));

const later = (a: string | null, b: string | null) => (a === null ? b : b !== null && b > a ? b : a);

/**
 * The run's view of an invoice's dunning (domain/dunning.ts): what its steps count from (due_on, or a
 * direct debit's first return other than AM04), and the later of the last release and the day a return
 * opened the paid invoice again.
 */
export function dunningStateOf({ invoice, dunning, payments: rows }: DunnedInvoice, zone: string): InvoiceDunning {
  const returns = returnsOf(rows, zone);
  const timeline = timelineOf(invoice, rows, zone);
  const firstStop = returns.find((r) => r.reason !== "AM04");
  const start =
    dunning?.startOn ?? (invoice.paymentMethod === "bank_transfer" ? invoice.dueOn : (firstStop?.on ?? null));
  let restartOn = dunning?.restartOn ?? null;
  for (const r of returns) {
    if (r === firstStop && invoice.paymentMethod === "direct_debit") continue;
    // A return that found nothing open (its day's payments counted, its day's returns not) opened the
    // paid invoice again: its steps count from it.
    const openBefore = sumUntil(
      { ...timeline, changes: timeline.changes.filter((c) => c.cents < 0 || c.on < r.on) },
      r.on,
    );
    if (openBefore <= 0) restartOn = later(restartOn, r.on);
  }
  const open = invoice.state === "open" && (invoice.grossAmount ?? 0) - invoice.allocatedAmount > 0;
  return {
    start,
    level: dunning?.level ?? 0,
    lastIssuedOn: dunning?.lastIssuedOn ?? null,
    restartOn,
    held: invoice.dunningState === "held",
    settled: !open,
    ended: invoice.dunningState === "ended",
    lastRunOn: dunning?.lastRunOn ?? null,
    overdueSent: (dunning?.overdueOn ?? null) !== null,
  };
}

function sumUntil(timeline: OpenAmountTimeline, day: string): number {
  let sum = timeline.openCents;
  for (const change of timeline.changes) if (change.on <= day) sum += change.cents;
  return sum;
}

/** The dunning on the wire: a paid or cancelled invoice's is settled whatever is stored. */
export function dunningOf(invoice: InvoiceRow, row: DunningRow | undefined, days: DunningDays | "off"): DunningView {
  const settled = invoice.state === "paid" || invoice.state === "cancelled";
  const state = settled ? "settled" : invoice.dunningState;
  let next: string | null = null;
  if (state === "none" || state === "active") {
    if (days !== "off") {
      const start = row?.startOn ?? (invoice.paymentMethod === "bank_transfer" ? invoice.dueOn : null);
      next = nextStepOn(
        {
          ...notYetDunned(start),
          level: row?.level ?? 0,
          lastIssuedOn: row?.lastIssuedOn ?? null,
          restartOn: row?.restartOn ?? null,
        },
        days,
      );
    }
  }
  return {
    invoiceId: invoice.id,
    state,
    level: row?.level ?? 0,
    defaultSince: row?.defaultSince ?? null,
    nextStepOn: next,
    heldReason: state === "held" ? (row?.heldReason ?? null) : null,
    chargesAmount: invoice.chargesAmount,
    updatedAt: row?.updatedAt ?? invoice.createdAt,
  };
}

const dunningById = lazily(() =>
  compile<DunningRow>(
    preparer()
      .select()
      .from(dunnings)
      .where(eq(dunnings.invoiceId, param("id")))
      .prepare(),
  ),
);

/** The dunning row of invoice `id`, for a route's load step (the invoice's own read scopes it). */
export const dunningRead = (id: string) => one(dunningById(), { id });

/**
 * Writes the invoice's dunning row as `next` if it is still as `read` (its last run and update): a
 * concurrent run or hold rolls the batch back (guard `dunning_unchanged`; an insert raced by another
 * fails on the primary key, `dunning_taken`).
 */
export function writeDunning(orm: Database, read: DunningRow | undefined, next: DunningRow) {
  if (!read) return orm.insert(dunnings).values(next);
  const holds = sql`${dunnings.updatedAt} = ${read.updatedAt} AND ${dunnings.lastRunOn} IS ${read.lastRunOn}`;
  const { invoiceId, ...rest } = next;
  return orm
    .update(dunnings)
    .set({ ...rest, updatedAt: guarded(holds, next.updatedAt, "dunning_unchanged") as never })
    .where(eq(dunnings.invoiceId, invoiceId));
}

/**
 * The invoice's dunning_state (and the charges a reminder claims), if the invoice is still as read: open
 * (or as it was), with the allocated amount and the dunning state read (guard `invoice_dunned`).
 */
export function writeInvoiceDunning(
  orm: Database,
  invoice: InvoiceRow,
  changes: { dunningState: InvoiceRow["dunningState"]; chargesAmount?: number },
) {
  const holds = sql`${invoices.state} = ${invoice.state} AND ${invoices.allocatedAmount} = ${
    invoice.allocatedAmount
  } AND ${invoices.dunningState} = ${invoice.dunningState}`;
  return orm
    .update(invoices)
    .set({ ...changes, dunningState: guarded(holds, changes.dunningState, "invoice_dunned") as never })
    .where(eq(invoices.id, invoice.id));
}
