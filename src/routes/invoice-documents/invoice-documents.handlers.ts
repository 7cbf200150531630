import { customerOf } from "../../auth/principal";
import { documentNumber, eInvoiceOf, findInvoiceAndLines, whyNoDocument } from "../../db/e-invoices";
import type { DocumentKind } from "../../domain/einvoice";
import { ApiError, notFound } from "../../errors";
import { database } from "../../http/database";
import { replyBody } from "../../http/reply";
import type { Handler } from "../../http/route";
import { FORMATS, type getDocument as route } from "./invoice-documents.routes";

/** `If-None-Match`'s form: one or more quoted ETags (weak ones too), comma-separated. */
const ETAGS = /^(W\/)?"[^"]*"(\s*,\s*(W\/)?"[^"]*")*$/;

/**
 * An invoice's e-invoice or credit note (docs/api.md part 13), the same bytes for ever. A stored one is
 * served from R2 with no database call: it names its customer, and neither an issued invoice nor a
 * cancellation changes. The first request reads the invoice and its lines (one round trip), has the
 * documents Worker render it and stores it; two first requests at once render the same bytes.
 */
export const getDocument =
  (kind: DocumentKind): Handler<ReturnType<typeof route>> =>
  async (c, { query, params: { id } }) => {
    const customer = customerOf(c);
    const key = `invoices/${id}/${kind}.${query.format}`;
    const headers = new Headers({ "Cache-Control": "private" });

    // If-None-Match becomes R2's own precondition (a match answers the object without its body); only
    // a well-formed list of ETags is passed on, which R2 would otherwise refuse with an exception. "*"
    // matches any stored document.
    const ifNoneMatch = c.req.header("If-None-Match")?.trim();
    const onlyIf = ifNoneMatch && ETAGS.test(ifNoneMatch) ? new Headers({ "If-None-Match": ifNoneMatch }) : undefined;
    const stored = await c.env.DOCUMENTS.get(key, { onlyIf });
    if (stored?.customMetadata?.customer === customer) {
      stored.writeHttpMetadata(headers);
      headers.set("ETag", stored.httpEtag);
      if (!("body" in stored) || ifNoneMatch === "*") return replyBody(c, 304, null, Object.fromEntries(headers));
      return replyBody(c, 200, stored.body, Object.fromEntries(headers));
    }

    const { invoice, lines } = await findInvoiceAndLines(database(c), customer, id);
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
    const httpMetadata = { contentType, contentDisposition: `attachment; filename="${number}.${extension}"` };
    const document = await c.env.RENDERER.render(eInvoiceOf(invoice, lines, kind), query.format);
    // Stored only if nothing is stored yet: a document is never replaced, not even by a rendering of
    // another release that raced this one. Whatever is stored is what this request answers too.
    const put = await c.env.DOCUMENTS.put(key, document, {
      httpMetadata,
      customMetadata: { customer },
      onlyIf: new Headers({ "If-None-Match": "*" }),
    });
    if (!put) {
      const first = await c.env.DOCUMENTS.get(key);
      if (first) {
        first.writeHttpMetadata(headers);
        headers.set("ETag", first.httpEtag);
        return replyBody(c, 200, first.body, Object.fromEntries(headers));
      }
    }
    headers.set("Content-Type", httpMetadata.contentType);
    headers.set("Content-Disposition", httpMetadata.contentDisposition);
    if (put) headers.set("ETag", put.httpEtag);
    return replyBody(c, 200, document, Object.fromEntries(headers));
  };
