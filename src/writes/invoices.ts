import { sql } from "drizzle-orm";
import { updateIfUnchanged, type Database } from "../db/client";
import { guarded } from "../db/guards";
import { buyerOf, whileProfileUnchanged } from "../db/billing-profiles";
import { creditNoteDelivery, issuedInvoiceDelivery } from "../db/invoice-deliveries";
import { insertLine, insertVoucherLines } from "../db/invoice-lines";
import { insertInvoice, numberOf, takeNumber } from "../db/invoices";
import { invoices, type BillingProfileRow, type CardOrderRow, type InvoiceRow } from "../db/schema";
import { businessTimeZone, invoiceTerms, LINE_TEXTS, type BillingVariables } from "../domain/billing";
import { assertBillable } from "../domain/card-orders";
import { sellerOf, type SellerVariables } from "../domain/seller";
import { newId } from "../domain/ids";
import { invoiceLifecycle, NUMBER_SERIES, PAYMENT_TERM_DAYS, type InvoiceKind } from "../domain/invoices";
import { moved } from "../domain/lifecycle";
import { addDays, dayIn, nextTimestamp } from "../domain/time";
import type { EventDraft } from "../events/outbox";
import { toInvoice } from "../schemas/invoice";
import { Made } from "./made";

type Variables = BillingVariables & SellerVariables & { CREDITOR_NAME: string };

/** What issuing an invoice needs beyond its order. */
interface IssueContext {
  orm: Database;
  vars: Variables;
  /** When the invoice is made: its created_at, and the business day of its booking and service period. */
  at: string;
}

interface IssuedInvoice {
  /** The invoice as stored, but with `number` its placeholder (the batch takes it). */
  row: InvoiceRow;
  /** Its number, which the batch takes: the plan that shows the invoice lists it in `made`. */
  number: Made;
  writes: [
    ReturnType<typeof takeNumber>,
    ReturnType<typeof insertInvoice>,
    ReturnType<typeof insertLine> | ReturnType<typeof insertVoucherLines>,
    ReturnType<typeof issuedInvoiceDelivery>,
  ];
  /** Its invoice.created event. */
  event: EventDraft;
}

/**
 * The writes that issue `order`'s invoice of `kind` to the customer whose billing `profile` was read
 * with the order (docs/api.md parts 10, 13 and 14): the next INV number of the business year, the
 * invoice with its amounts, its seller (the variables now) and its buyer (that profile, which must make
 * a valid document: 409 otherwise), and its lines in the profile's language. Go in the batch of the
 * change that makes it, so that a number is taken only with its invoice and the sequence stays gapless;
 * a concurrent change of the profile fails that batch (guard `profile_unchanged`).
 */
export function issueInvoice(
  { orm, vars, at }: IssueContext,
  order: CardOrderRow,
  profile: BillingProfileRow | undefined,
  kind: InvoiceKind,
  reference: string | null,
): IssuedInvoice {
  assertBillable(order, profile);
  const buyer = buyerOf(profile!);
  const today = dayIn(new Date(at), businessTimeZone(vars));
  const year = Number(today.slice(0, 4));
  const terms = invoiceTerms(kind, order, buyer, vars);
  const seller = JSON.stringify(sellerOf(vars, order.paymentMethod));
  const number = new Made(numberOf(NUMBER_SERIES.invoice, year));
  const row: InvoiceRow = {
    id: newId(),
    customerId: order.customerId,
    number: number.shown,
    state: invoiceLifecycle.initial,
    createdAt: at,
    updatedAt: at,
    bookedOn: today,
    creditor: vars.CREDITOR_NAME,
    dueOn: addDays(today, PAYMENT_TERM_DAYS),
    paidAt: null,
    cancellationNumber: null,
    cancelledAt: null,
    cancelledOn: null,
    orderId: order.id,
    orderState: order.state,
    reference,
    costCenter: order.costCenter,
    paymentMethod: order.paymentMethod,
    kind,
    netAmount: terms.net,
    grossAmount: terms.gross,
    recipient: order.customerId,
    servicePeriodStart: kind === "voucher" ? null : today,
    servicePeriodEnd: kind === "voucher" ? null : today,
    seller,
    buyer: null,
    linesCount: terms.feeLine ? 1 : order.entriesCount,
    allocatedAmount: 0,
    pendingCollection: null,
    chargesAmount: 0,
    dunningState: "none",
  };
  const vat = { category: terms.vatCategory, percent: terms.vatPercent };
  const { feeLine } = terms;
  const lines = feeLine
    ? insertLine(orm, {
        invoiceId: row.id,
        position: 1,
        ...feeLine,
        netAmount: terms.net,
        vatCategory: vat.category,
        vatPercent: vat.percent,
        cardOrderEntryId: null,
      })
    : insertVoucherLines(orm, row.id, order.id, vat, LINE_TEXTS[buyer.documentLanguage].voucher);
  return {
    row,
    number,
    writes: [
      takeNumber(orm, NUMBER_SERIES.invoice, year),
      insertInvoice(orm, {
        ...row,
        number: number.value,
        buyer: whileProfileUnchanged(profile!, JSON.stringify(buyer)),
      }),
      lines,
      // docs/api.md part 17: its e-mail to the buyer, sent by the jobs Worker once this batch is stored.
      issuedInvoiceDelivery(orm, row, profile!),
    ],
    event: { type: "invoice.created", data: toInvoice(row) },
  };
}

/**
 * A cancellation is a legal document of its own: it takes a number of the CN series of the business
 * year in the same batch, and its day (the credit note's issue date) is kept. Its credit note's e-mail
 * to the buyer (docs/api.md part 17) is written with it.
 */
export function cancellation(orm: Database, vars: BillingVariables, at: string, invoice: InvoiceRow) {
  const cancelledOn = dayIn(new Date(at), businessTimeZone(vars));
  const year = Number(cancelledOn.slice(0, 4));
  return {
    number: new Made(numberOf(NUMBER_SERIES.cancellation, year)),
    cancelledOn,
    take: takeNumber(orm, NUMBER_SERIES.cancellation, year),
    delivery: creditNoteDelivery(orm, invoice, at),
  };
}

/**
 * A change of an invoice's money (`pay`, a cancel) that holds only on what its checks read: the
 * allocated amount unchanged (a statement's payment may land between the read and the batch, and
 * moves no updated_at) and no direct debit collection holding the invoice (docs/api.md parts 15, 16).
 */
export const moneyAsRead = (invoice: InvoiceRow, allocated = invoice.allocatedAmount) => ({
  allocatedAmount: guarded(
    sql`${invoices.allocatedAmount} = ${invoice.allocatedAmount}`,
    allocated,
    "invoice_allocation",
  ),
  pendingCollection: guarded(sql`${invoices.pendingCollection} IS NULL`, null, "invoice_not_collected"),
});

/**
 * Cancels an open invoice as part of its order's cancel, guarded like any change of it, with its
 * invoice.cancelled event (the invoice showing its order cancelled too) and its cancellation number,
 * which the batch takes (for the plan's `made`).
 */
export function cancelInvoice(orm: Database, vars: BillingVariables, invoice: InvoiceRow, at: string) {
  const cancelledAt = nextTimestamp(invoice.updatedAt, new Date(at));
  const { number, cancelledOn, take, delivery } = cancellation(orm, vars, cancelledAt, invoice);
  const changes = moved(invoiceLifecycle, invoice.state, { action: "cancel" }, cancelledAt);
  const event: EventDraft = {
    type: "invoice.cancelled",
    data: toInvoice({ ...invoice, ...changes, cancellationNumber: number.shown, orderState: "cancelled" }),
  };
  return {
    number,
    writes: [
      take,
      updateIfUnchanged(orm, invoices, invoice, {
        ...changes,
        cancellationNumber: number.value,
        cancelledOn,
        ...moneyAsRead(invoice),
      }),
      delivery,
    ],
    event,
  };
}
