import type { Buyer, DocumentKind, EInvoice, Seller } from "../domain/einvoice";
import type { RequestDatabase } from "./client";
import { byId as invoiceById } from "./invoices";
import { linesOf } from "./invoice-lines";
import type { InvoiceLineRow, InvoiceRow } from "./schema";

// An issued invoice as its e-invoice shows it (docs/api.md parts 13 and 14), from what was kept when it
// was issued: the invoice with its seller and buyer (JSON text of domain/einvoice.ts's Seller and
// Buyer), its lines, and for a credit note its cancellation.

/**
 * The customer's invoice and all its lines, in order, in one round trip: what its documents show
 * (at most 500 lines). The lines are another customer's invoice's only when the invoice is not found.
 */
export async function findInvoiceAndLines(db: RequestDatabase, customerId: string, invoiceId: string) {
  const [[invoice], lines] = await db.readAll(
    [invoiceById(), { id: invoiceId, customer: customerId }],
    [linesOf(), { invoice: invoiceId }],
  );
  return { invoice, lines };
}

/** The number a document carries: the invoice's, or its cancellation number for the credit note. */
export const documentNumber = (invoice: InvoiceRow, kind: DocumentKind): string =>
  kind === "credit_note" ? invoice.cancellationNumber! : invoice.number;

/**
 * Why the invoice has no e-invoice, or null when it has one: it was issued before e-invoices existed (no
 * parties kept), or, before docs/api.md part 14, for a profile without the buyer's electronic address
 * (BT-49), without which no receiver accepts it. Such a document is refused rather than stored broken.
 */
export function whyNoDocument(invoice: InvoiceRow): string | null {
  if (invoice.seller === null || invoice.buyer === null)
    return "it was issued without the seller's and buyer's data (before e-invoices existed)";
  const buyer = JSON.parse(invoice.buyer) as Partial<Buyer>;
  if (!buyer.email && !buyer.leitwegId)
    return (
      "it was issued for a billing profile without an e-mail address, " +
      "the buyer's electronic address an e-invoice needs"
    );
  return null;
}

/** The e-invoice of an invoice that has one (`whyNoDocument` is null) and, for a credit note, is cancelled. */
export function eInvoiceOf(invoice: InvoiceRow, lines: InvoiceLineRow[], kind: DocumentKind): EInvoice {
  // Parties kept before docs/api.md part 14 lack its fields: they had none of them.
  const seller: Seller = {
    managingDirectors: null,
    ...(JSON.parse(invoice.seller!) as Omit<Seller, "managingDirectors">),
  };
  const buyer: Buyer = {
    leitwegId: null,
    directDebitBic: null,
    directDebitMandateSignedOn: null,
    documentLanguage: "de",
    ...(JSON.parse(invoice.buyer!) as Partial<Buyer>),
  } as Buyer;
  const net = invoice.netAmount!;
  const gross = invoice.grossAmount!;
  const creditNote = kind === "credit_note";
  return {
    typeCode: creditNote ? "381" : "380",
    kind: invoice.kind,
    language: buyer.documentLanguage,
    number: documentNumber(invoice, kind),
    issueDate: creditNote ? (invoice.cancelledOn ?? invoice.cancelledAt!.slice(0, 10)) : invoice.bookedOn,
    dueDate: creditNote ? null : invoice.dueOn,
    precedingInvoice: creditNote ? { number: invoice.number, issueDate: invoice.bookedOn } : null,
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
