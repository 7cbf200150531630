import { and, eq, isNull, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../db/client";
import { guarded } from "../db/guards";
import { invoices, payments, type InvoiceRow, type PaymentRow } from "../db/schema";
import type { ReturnReason } from "../domain/direct-debits";
import { invoiceLifecycle } from "../domain/invoices";
import { moved } from "../domain/lifecycle";
import { newId } from "../domain/ids";
import { chargesOpenOf, type SettlementMethod } from "../domain/payments";
import { nextTimestamp } from "../domain/time";
import type { EventDraft } from "../events/outbox";
import { toInvoice } from "../schemas/invoice";
import { toPayment } from "../schemas/payment";

// docs/api.md part 15: money allocated to an invoice, the one way every payment is written (a matched
// bank transaction, a person's allocation, `pay`, a collected direct debit). Each allocation is a
// payment row, the invoice's allocated amount moved (guarded: it holds only on the amount read, so
// two allocations that race cannot take more than the invoice's open amount), and its events: the
// payment's, then, when the open amount reaches zero, the invoice's `invoice.paid` (rule 4).

interface Allocation {
  /** The invoice as read before the write. */
  invoice: InvoiceRow;
  amount: number;
  method: SettlementMethod;
  bankTransactionId: string | null;
  /** The bank's booking date (a manual payment's: the day of the call). */
  bookedOn: string;
  /** When the allocation is made: the payment's created_at, and paid_at when it settles the invoice. */
  at: string;
  /** A collected direct debit's payment has the debit's id (its return finds it by that). */
  id?: string;
}

/** The open amount of an invoice: gross minus what is allocated of it, never below zero. */
export const openAmountOf = (invoice: Pick<InvoiceRow, "state" | "grossAmount" | "allocatedAmount">): number =>
  invoice.state === "open" ? Math.max(0, (invoice.grossAmount ?? 0) - invoice.allocatedAmount) : 0;

type Charged = Pick<InvoiceRow, "state" | "grossAmount" | "allocatedAmount" | "chargesAmount">;

/**
 * What an invoice can still take: its open amount, then its unpaid charges (also when it is `paid`: the
 * charges stay for a person). A cancelled invoice takes nothing.
 */
export const payableOf = (invoice: Charged): number =>
  invoice.state === "cancelled" ? 0 : openAmountOf(invoice) + chargesOpenOf(invoice);

/** A payment of `amount` to `invoice`: its row's insert and its `payment.received` event. */
export function recordPayment(orm: Database, a: Allocation) {
  const row: PaymentRow = {
    id: a.id ?? newId(),
    invoiceId: a.invoice.id,
    invoiceNumber: a.invoice.number,
    customerId: a.invoice.customerId,
    amount: a.amount,
    method: a.method,
    bankTransactionId: a.bankTransactionId,
    bookedOn: a.bookedOn,
    returnedAt: null,
    returnReason: null,
    createdAt: a.at,
  };
  const event: EventDraft = { type: "payment.received", data: toPayment(row), customerId: a.invoice.customerId };
  return { row, insert: orm.insert(payments).values(row), event };
}

/**
 * docs/api.md part 16: a direct debit whose return was read before its settlement: the payment the
 * settlement makes, recorded and reversed at once (`payment.received`, then `payment.returned`). The
 * invoice is untouched: it was never paid by it.
 */
export function recordReturned(
  orm: Database,
  a: Allocation,
  reason: ReturnReason,
): { writes: BatchItem<"sqlite">[]; events: EventDraft[] } {
  const { row, event } = recordPayment(orm, a);
  const returned: PaymentRow = { ...row, returnedAt: a.at, returnReason: reason };
  return {
    writes: [orm.insert(payments).values(returned)],
    events: [event, { type: "payment.returned", data: toPayment(returned), customerId: a.invoice.customerId }],
  };
}

/** The writes and events of one allocation: the payment, the invoice's allocated amount, and its settling. */
export function allocate(
  orm: Database,
  a: Allocation,
): { payment: PaymentRow; invoice: InvoiceRow; writes: BatchItem<"sqlite">[]; events: EventDraft[] } {
  const { invoice } = a;
  const payment = recordPayment(orm, a);
  const allocated = invoice.allocatedAmount + a.amount;
  // Held only on what was read: an invoice changed meanwhile (another allocation, a cancel) rolls the
  // batch back (guard `invoice_allocation`). A `paid` one takes only its charges (part 18).
  const holds = sql`${invoices.allocatedAmount} = ${invoice.allocatedAmount} AND ${invoices.state} = ${invoice.state}`;
  const paidAt =
    invoice.state === "open" && allocated >= (invoice.grossAmount ?? 0)
      ? nextTimestamp(invoice.updatedAt, new Date(a.at))
      : null;
  // Settled by the lifecycle table's move, from the state the guard holds.
  const settled = paidAt ? moved(invoiceLifecycle, "open", { move: "settle" }, paidAt) : {};
  const events = [payment.event];
  if (paidAt)
    events.push({ type: "invoice.paid", data: toInvoice({ ...invoice, ...settled }), customerId: invoice.customerId });
  return {
    payment: payment.row,
    // As the batch leaves it: a statement's next transaction in the same batch reads it so.
    invoice: { ...invoice, allocatedAmount: allocated, ...settled },
    writes: [
      payment.insert,
      orm
        .update(invoices)
        .set({ allocatedAmount: guarded(holds, allocated, "invoice_allocation"), ...settled })
        .where(eq(invoices.id, invoice.id)),
    ],
    events,
  };
}

/**
 * docs/api.md part 16: a returned direct debit reverses its payment: `returned_at` and the reason set,
 * the invoice's allocated amount less it, and the invoice `open` again (paid_at null) when it was paid;
 * event `payment.returned`. Guarded on what was read, like an allocation.
 */
export function reverse(
  orm: Database,
  r: { payment: PaymentRow; invoice: InvoiceRow; reason: ReturnReason; at: string },
): { payment: PaymentRow; writes: BatchItem<"sqlite">[]; events: EventDraft[] } {
  const { invoice } = r;
  const payment: PaymentRow = { ...r.payment, returnedAt: r.at, returnReason: r.reason };
  const holds = sql`${invoices.allocatedAmount} = ${invoice.allocatedAmount} AND ${invoices.state} = ${invoice.state}`;
  // It takes back what it took: a paid invoice whose charges alone it paid stays paid (part 18).
  const reopened =
    invoice.state === "paid" && invoice.allocatedAmount - payment.amount < (invoice.grossAmount ?? 0)
      ? moved(invoiceLifecycle, "paid", { move: "reopen" }, nextTimestamp(invoice.updatedAt, new Date(r.at)))
      : {};
  return {
    payment,
    writes: [
      orm
        .update(payments)
        .set({
          returnedAt: guarded(sql`${payments.returnedAt} IS NULL`, r.at, "payment_not_returned"),
          returnReason: r.reason,
        })
        .where(and(eq(payments.id, payment.id), isNull(payments.returnedAt))),
      orm
        .update(invoices)
        .set({
          allocatedAmount: guarded(holds, invoice.allocatedAmount - payment.amount, "invoice_allocation"),
          ...reopened,
        })
        .where(eq(invoices.id, invoice.id)),
    ],
    events: [{ type: "payment.returned", data: toPayment(payment), customerId: invoice.customerId }],
  };
}
