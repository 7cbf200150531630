import * as z from "zod/mini";
import type { DocumentKind } from "../../documents/from-invoice";
import { invoiceLifecycle } from "../../domain/invoices";
import { NO_BODY } from "../../http/request-body";
import type { RouteSpec } from "../../http/route";
import { oneOf, pathId } from "../../schemas/formats";

const TAG = "Invoices";

/** `format` (CONTRACT part 13); `pdf` comes with the ZUGFeRD renderer and is refused until then. */
export const FORMATS = ["ubl", "cii"] as const;

const DocumentQuery = z.object({
  format: z._default(oneOf(FORMATS), "ubl").register(z.globalRegistry, {
    description: "ubl: XRechnung 3.0 in UBL 2.1 (the default); cii: XRechnung 3.0 in UN/CEFACT CII.",
  }),
});

const XML = z.string();

const ABOUT: Record<DocumentKind, { path: string; operationId: string; summary: string; description: string }> = {
  invoice: {
    path: "/invoices/{id}/document",
    operationId: "getInvoiceDocument",
    summary: "Download the invoice as an e-invoice (XRechnung)",
    description:
      "An EN 16931 / XRechnung 3.0 e-invoice (type 380) of the invoice, with the seller and buyer as they were when it was issued. The same bytes on every request, for ever (strong ETag; If-None-Match answers 304). An invoice issued before invoices kept their parties answers 409 conflict.",
  },
  credit_note: {
    path: "/invoices/{id}/credit_note",
    operationId: "getInvoiceCreditNote",
    summary: "Download a cancelled invoice's credit note as an e-invoice (XRechnung)",
    description:
      "The credit note (type 381) that cancels the invoice: numbered with its cancellation_number, issued on the day of cancelled_at, referring to the invoice, with its lines and amounts. An invoice that is not cancelled answers 409 invalid_state. Same bytes for ever, ETag and 304 as for the document.",
  },
};

export const getDocument = (kind: DocumentKind) =>
  ({
    ...ABOUT[kind],
    method: "get",
    tag: TAG,
    access: { scope: "invoices:read", tenant: true },
    body: NO_BODY,
    query: DocumentQuery,
    params: z.object({ id: pathId(invoiceLifecycle.noun) }),
    errors: kind === "invoice" ? ["conflict"] : ["conflict", "invalid_state"],
    success: {
      status: 200,
      description: "The e-invoice as an attachment named after its number.",
      schema: XML,
      mediaType: "application/xml",
      headers: { "Cache-Control": "private" },
    },
  }) satisfies RouteSpec;
