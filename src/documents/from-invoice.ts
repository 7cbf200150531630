import type { InvoiceLineRow, InvoiceRow } from "../db/schema";
import type { Buyer, EInvoice, Seller } from "./model";

export type DocumentKind = "invoice" | "credit_note";

/** The number a document carries: the invoice's, or its cancellation number for the credit note. */
export const documentNumber = (invoice: InvoiceRow, kind: DocumentKind): string =>
  kind === "credit_note" ? invoice.cancellationNumber! : invoice.number;

/**
 * An invoice as its e-invoice shows it (docs/api.md part 13), from what was kept when it was issued:
 * the invoice (with its seller and buyer), its lines, and for a credit note its cancellation.
 * The invoice must have both parties (`hasDocuments`) and, for a credit note, be cancelled.
 */
export function eInvoiceOf(invoice: InvoiceRow, lines: InvoiceLineRow[], kind: DocumentKind): EInvoice {
  const seller = JSON.parse(invoice.seller!) as Seller;
  const buyer = JSON.parse(invoice.buyer!) as Buyer;
  const net = invoice.netAmount!;
  const gross = invoice.grossAmount!;
  const creditNote = kind === "credit_note";
  return {
    typeCode: creditNote ? "381" : "380",
    number: documentNumber(invoice, kind),
    issueDate: creditNote ? invoice.cancelledAt!.slice(0, 10) : invoice.bookedOn,
    dueDate: creditNote ? null : invoice.dueOn,
    precedingInvoice: creditNote ? { number: invoice.number, issueDate: invoice.bookedOn } : null,
    // An empty reference is none: BT-10 must not be blank (BR-DE-15).
    buyerReference: buyer.buyerReference || invoice.reference?.trim() || invoice.customerId,
    orderReference: invoice.reference,
    accountingReference: invoice.costCenter,
    salesOrderReference: invoice.orderId,
    servicePeriod:
      invoice.servicePeriodStart && invoice.servicePeriodEnd
        ? { start: invoice.servicePeriodStart, end: invoice.servicePeriodEnd }
        : null,
    paymentMethod: invoice.paymentMethod,
    seller,
    buyer,
    lines: lines.map((line) => ({
      position: line.position,
      description: line.description,
      quantity: line.quantity,
      unitPriceCents: line.unitPrice,
      netCents: line.netAmount,
      vatCategory: line.vatCategory,
      vatPercent: line.vatPercent,
    })),
    netCents: net,
    vatCents: gross - net,
    grossCents: gross,
  };
}

/** Whether the invoice was issued with what its documents show (not so before e-invoices existed). */
export const hasDocuments = (invoice: InvoiceRow): boolean => invoice.seller !== null && invoice.buyer !== null;
