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

const ABOUT: Record<DocumentKind, { path: string; operationId: string }> = {
  invoice: { path: "/invoices/{id}/document", operationId: "getInvoiceDocument" },
  credit_note: { path: "/invoices/{id}/credit_note", operationId: "getInvoiceCreditNote" },
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
      schema: XML,
      mediaType: "application/xml",
      alternatives: { [PDF_TYPE]: { type: "string", format: "binary" } },
      headers: { "Cache-Control": "private" },
      conditional: true,
    },
  }) satisfies RouteSpec;
