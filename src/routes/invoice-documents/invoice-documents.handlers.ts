import { customerOf } from "../../auth/principal";
import { findLines } from "../../db/invoice-lines";
import { findInvoice } from "../../db/invoices";
import { hasDocuments, type DocumentKind } from "../../documents/from-invoice";
import { isId } from "../../domain/ids";
import { ApiError, notFound } from "../../errors";
import { database } from "../../http/database";
import { replyBody } from "../../http/reply";
import type { Handler } from "../../http/route";
import type { getDocument as route } from "./invoice-documents.routes";

const XML_CONTENT_TYPE = "application/xml; charset=utf-8";

/**
 * An invoice's e-invoice or credit note (CONTRACT part 13). The first request renders it (the
 * documents Worker) and stores it in R2; every later one, before or after any release, serves the
 * stored bytes, so a document never changes. Two first requests at once render the same bytes.
 */
export const getDocument =
  (kind: DocumentKind): Handler<ReturnType<typeof route>> =>
  async (c, { query }) => {
    const id = c.req.param("id") ?? "";
    const db = database(c);
    const invoice = isId(id) ? await findInvoice(db, customerOf(c), id) : undefined;
    if (!invoice) throw notFound("invoice");
    if (kind === "credit_note" && invoice.state !== "cancelled")
      throw ApiError.of(
        "invalid_state",
        `The invoice is ${invoice.state}; only a cancelled invoice has a credit note.`,
      );
    if (!hasDocuments(invoice))
      throw ApiError.of(
        "conflict",
        `Invoice ${invoice.number} was issued before invoices kept the seller's and buyer's data, so it has no e-invoice.`,
      );

    const key = `invoices/${invoice.id}/${kind}.${query.format}`;
    const number = kind === "invoice" ? invoice.number : invoice.cancellationNumber;
    const headers = (etag: string) => ({
      ETag: etag,
      "Cache-Control": "private",
      "Content-Disposition": `attachment; filename="${number}.xml"`,
    });
    // If-None-Match is R2's own precondition: a match answers the object without its body.
    const stored = await c.env.DOCUMENTS.get(key, { onlyIf: c.req.raw.headers });
    if (stored && !("body" in stored)) return replyBody(c, 304, null, headers(stored.httpEtag));
    if (stored)
      return replyBody(c, 200, stored.body, { ...headers(stored.httpEtag), "Content-Type": XML_CONTENT_TYPE });

    const lines = await findLines(db, invoice.id);
    const text = await c.env.RENDERER.render(invoice, lines, kind, query.format);
    const put = await c.env.DOCUMENTS.put(key, text, { httpMetadata: { contentType: XML_CONTENT_TYPE } });
    return replyBody(c, 200, text, { ...headers(put.httpEtag), "Content-Type": XML_CONTENT_TYPE });
  };
