import { customerOf } from "../../auth/principal";
import { documentNumber, eInvoiceOf, findInvoiceAndLines, whyNoDocument } from "../../db/e-invoices";
import type { DocumentKind } from "../../domain/einvoice";
import { ApiError, notFound } from "../../errors";
import { database } from "../../http/database";
import { keepAndServe, servedKept } from "../../http/kept-document";
import { endpoint, type Handler } from "../../http/route";
import * as routes from "./invoice-documents.routes";
import { FORMATS, type getDocument as route } from "./invoice-documents.routes";

/**
 * An invoice's e-invoice or credit note (docs/api.md part 13), the same bytes for ever. A stored one is
 * served from R2 with no database call: it names its customer, and neither an issued invoice nor a
 * cancellation changes. The first request reads the invoice and its lines (one round trip), has the
 * documents Worker render it and keeps it (http/kept-document.ts).
 */
const getDocument =
  (kind: DocumentKind): Handler<ReturnType<typeof route>> =>
  async (c, { query, params: { id } }) => {
    const kept = { key: `invoices/${id}/${kind}.${query.format}`, owner: customerOf(c) };
    const stored = await servedKept(c, kept);
    if (stored) return stored;

    const { invoice, lines } = await findInvoiceAndLines(database(c), kept.owner, id);
    if (!invoice) throw notFound("invoice");
    if (kind === "credit_note" && invoice.state !== "cancelled")
      throw ApiError.of(
        "invalid_state",
        `The invoice is ${invoice.state}; only a cancelled invoice has a credit note.`,
      );
    const missing = whyNoDocument(invoice);
    if (missing) throw ApiError.of("conflict", `Invoice ${invoice.number} has no e-invoice: ${missing}.`);
    const number = documentNumber(invoice, kind);
    const { contentType, extension } = FORMATS[query.format];
    const document = await c.env.RENDERER.render(eInvoiceOf(invoice, lines, kind), query.format);
    return keepAndServe(c, kept, document, {
      contentType,
      contentDisposition: `attachment; filename="${number}.${extension}"`,
    });
  };

/** This folder's routes, each with its handler (and load step), in the route table's order. */
export const invoiceDocumentEndpoints = (["invoice", "credit_note"] as const).map((kind) =>
  endpoint(routes.getDocument(kind), getDocument(kind)),
);
