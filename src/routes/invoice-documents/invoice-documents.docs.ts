import type { RouteDocs } from "../../http/route";

const SUCCESS =
  "The e-invoice as an attachment named after its number: " + "XML (ubl, cii) or a ZUGFeRD PDF/A-3 (pdf).";

/** The prose of invoice-documents.routes.ts in the OpenAPI document, by operationId. */
export const invoiceDocumentDocs: Record<string, RouteDocs> = {
  getInvoiceDocument: {
    summary: "Download the invoice as an e-invoice (XRechnung or ZUGFeRD)",
    description:
      "An EN 16931 / XRechnung 3.0 e-invoice (type 380) of the invoice, with the seller and buyer " +
      "as they were when it was issued: XML in UBL or CII, or a PDF/A-3 a person reads (in the buyer's " +
      "document_language) with the CII embedded as factur-x.xml (ZUGFeRD 2 / Factur-X, profile EN 16931, " +
      "BT-24 urn:cen.eu:en16931:2017). The same bytes on every request, for ever (strong ETag; If-None-Match " +
      "with it or * answers 304). An invoice issued before invoices kept their parties, or kept without the " +
      "buyer's e-mail address, answers 409 conflict.",
    success: SUCCESS,
  },
  getInvoiceCreditNote: {
    summary: "Download a cancelled invoice's credit note as an e-invoice (XRechnung or ZUGFeRD)",
    description:
      "The credit note (type 381) that cancels the invoice: numbered with its cancellation_number, " +
      "issued on the business day of its cancellation, referring to the invoice, with its lines and amounts " +
      "(negative on the PDF's pages). " +
      "An invoice that is not cancelled answers 409 invalid_state. " +
      "Same bytes for ever, ETag and 304 as for the document.",
    success: SUCCESS,
  },
};
