import type { SQL } from "drizzle-orm";
import { updateIfUnchanged, type Database } from "../db/client";
import { buyerOf } from "../db/billing-profiles";
import { insertLine, insertVoucherLines } from "../db/invoice-lines";
import { insertInvoice, numberOf, takeNumber } from "../db/invoices";
import { invoices, type CardOrderRow, type InvoiceRow } from "../db/schema";
import { invoiceTerms, type BillingVariables } from "../domain/billing";
import { sellerOf, type SellerVariables } from "../domain/seller";
import { newId } from "../domain/ids";
import { invoiceLifecycle, NUMBER_SERIES, PAYMENT_TERM_DAYS, type InvoiceKind } from "../domain/invoices";
import { addDays, isoDate, nextTimestamp } from "../domain/time";
import type { EventDraft } from "../events/outbox";
import { toInvoice } from "../schemas/invoice";

/** What issuing an invoice needs beyond its order. */
interface IssueContext {
  orm: Database;
  vars: BillingVariables & SellerVariables & { CREDITOR_NAME: string };
  /** When the invoice is made: its created_at, its booking day, and the day of a service period. */
  at: string;
}

interface IssuedInvoice {
  /** The invoice as stored, but with `number` "" (the batch takes it). */
  row: InvoiceRow;
  /** Its number, as SQL that the batch evaluates after taking it. */
  number: SQL<string>;
  writes: [
    ReturnType<typeof takeNumber>,
    ReturnType<typeof insertInvoice>,
    ReturnType<typeof insertLine> | ReturnType<typeof insertVoucherLines>,
  ];
  /** Its invoice.created event. */
  event: EventDraft;
}

/**
 * The writes that issue `order`'s invoice of `kind` (docs/api.md parts 10 and 13): the next INV number
 * of the UTC year, the invoice with its amounts, its seller (the variables now) and its buyer (the
 * customer's billing profile as the batch reads it), and its lines. Go in the batch of the change
 * that makes it, so that a number is taken only with its invoice and the sequence stays gapless.
 */
export function issueInvoice(
  { orm, vars, at }: IssueContext,
  order: CardOrderRow,
  kind: InvoiceKind,
  reference: string | null,
): IssuedInvoice {
  const now = new Date(at);
  const year = now.getUTCFullYear();
  const terms = invoiceTerms(kind, order, vars);
  const seller = JSON.stringify(sellerOf(vars, order.paymentMethod));
  const row: InvoiceRow = {
    id: newId(),
    customerId: order.customerId,
    number: "",
    state: invoiceLifecycle.initial,
    createdAt: at,
    updatedAt: at,
    bookedOn: isoDate(now),
    creditor: vars.CREDITOR_NAME,
    dueOn: isoDate(addDays(now, PAYMENT_TERM_DAYS)),
    paidAt: null,
    cancellationNumber: null,
    cancelledAt: null,
    orderId: order.id,
    orderState: order.state,
    reference,
    costCenter: order.costCenter,
    paymentMethod: order.paymentMethod,
    kind,
    netAmount: terms.net,
    grossAmount: terms.gross,
    recipient: order.customerId,
    servicePeriodStart: kind === "voucher" ? null : isoDate(now),
    servicePeriodEnd: kind === "voucher" ? null : isoDate(now),
    seller,
    buyer: null,
    linesCount: terms.feeLine ? 1 : order.entriesCount,
  };
  const number = numberOf(NUMBER_SERIES.invoice, year);
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
    : insertVoucherLines(orm, row.id, order.id, vat);
  return {
    row,
    number,
    writes: [
      takeNumber(orm, NUMBER_SERIES.invoice, year),
      insertInvoice(orm, { ...row, number, buyer: buyerOf(order.customerId, order.paymentMethod) }),
      lines,
    ],
    event: { type: "invoice.created", data: toInvoice(row), fill: { "$.number": number } },
  };
}

/** A cancellation is a legal document of its own: it takes a number of the CN series in the same batch. */
export function cancellationNumber(orm: Database, at: string) {
  const year = new Date(at).getUTCFullYear();
  return {
    number: numberOf(NUMBER_SERIES.cancellation, year),
    take: takeNumber(orm, NUMBER_SERIES.cancellation, year),
  };
}

/**
 * Cancels an open invoice as part of its order's cancel, guarded like any change of it, with its
 * invoice.cancelled event (the invoice showing its order cancelled too).
 */
export function cancelInvoice(orm: Database, invoice: InvoiceRow, at: string) {
  const { number, take } = cancellationNumber(orm, at);
  const cancelledAt = nextTimestamp(invoice.updatedAt, new Date(at));
  const changes = { state: "cancelled", cancelledAt, updatedAt: cancelledAt } as const;
  const event: EventDraft = {
    type: "invoice.cancelled",
    data: toInvoice({ ...invoice, ...changes, orderState: "cancelled" }),
    fill: { "$.cancellation_number": number },
  };
  return {
    writes: [take, updateIfUnchanged(orm, invoices, invoice, { ...changes, cancellationNumber: number })],
    event,
  };
}
