import * as z from "zod/mini";
import type { DocumentFormat, DocumentKind } from "../../domain/einvoice";
import { invoiceLifecycle } from "../../domain/invoices";
import { NO_BODY } from "../../http/request-body";
import type { RouteSpec } from "../../http/route";
import { oneOf, pathId } from "../../schemas/formats";

const TAG = "Invoices";

const XML_TYPE = "application/xml; charset=utf-8";
const PDF_TYPE = "application/pdf";

/** `format` (docs/api.md part 13), each as it is served; the first is the default. */
export const FORMATS = {
  ubl: { contentType: XML_TYPE, extension: "xml" },
  cii: { contentType: XML_TYPE, extension: "xml" },
  pdf: { contentType: PDF_TYPE, extension: "pdf" },
} as const satisfies Record<DocumentFormat, { contentType: string; extension: string }>;

const DocumentQuery = z.object({
  format: z
    ._default(oneOf(Object.keys(FORMATS) as [DocumentFormat, ...DocumentFormat[]]), "ubl")
    .register(z.globalRegistry, {
      description:
        "ubl: XRechnung 3.0 in UBL 2.1 (the default); cii: XRechnung 3.0 in UN/CEFACT CII; pdf: ZUGFeRD 2 / " +
        "Factur-X (profile EN 16931), a PDF/A-3 with the cii document embedded as factur-x.xml.",
    }),
});

const XML = z.string();

const SUCCESS =
  "The e-invoice as an attachment named after its number: " + "XML (ubl, cii) or a ZUGFeRD PDF/A-3 (pdf).";

const ABOUT = {
  invoice: {
    path: "/invoices/{id}/document",
    operationId: "getInvoiceDocument",
    docs: {
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
  },
  credit_note: {
    path: "/invoices/{id}/credit_note",
    operationId: "getInvoiceCreditNote",
    docs: {
      summary: "Download a cancelled invoice's credit note as an e-invoice (XRechnung or ZUGFeRD)",
      description:
        "The credit note (type 381) that cancels the invoice: numbered with its cancellation_number, " +
        "issued on the business day of its cancellation, referring to the invoice, with its lines and amounts " +
        "(negative on the PDF's pages). " +
        "An invoice that is not cancelled answers 409 invalid_state. " +
        "Same bytes for ever, ETag and 304 as for the document.",
      success: SUCCESS,
    },
  },
} satisfies Record<DocumentKind, Pick<RouteSpec, "path" | "operationId" | "docs">>;

const documentRoute = (kind: DocumentKind) =>
  ({
    ...ABOUT[kind],
    method: "get",
    tag: TAG,
    worker: "jobs",
    access: { scope: "invoices:read", tenant: true },
    body: NO_BODY,
    query: DocumentQuery,
    params: z.object({ id: pathId(invoiceLifecycle.noun) }),
    errors: kind === "invoice" ? ["conflict"] : ["conflict", "invalid_state"],
    success: {
      status: 200,
      schema: XML,
      mediaType: "application/xml",
      alternatives: { [PDF_TYPE]: { type: "string", format: "binary" } },
      headers: { "Cache-Control": "private" },
      conditional: true,
    },
  }) satisfies RouteSpec;

const DOCUMENT_ROUTES = { invoice: documentRoute("invoice"), credit_note: documentRoute("credit_note") };

/** The route of an invoice's document of `kind`, the same object each time (its handler is bound by it). */
export const getDocument = (kind: DocumentKind) => DOCUMENT_ROUTES[kind];

/** This folder's routes, in the route table's order (src/app.ts: the jobs Worker binds their handlers). */
export const invoiceDocumentRoutes = [getDocument("invoice"), getDocument("credit_note")];
