import { eInvoiceOf } from "../db/e-invoices";
import type { InvoiceLineRow, InvoiceRow } from "../db/schema";
import type { InvoiceFormat } from "../domain/deliveries";
import type { DocumentKind } from "../domain/einvoice";
import type { Bindings } from "../env";
import { FORMATS } from "../routes/invoice-documents/invoice-documents.routes";

/**
 * The bytes of an invoice's document (or its credit note) in `format`: exactly what GET
 * /invoices/{id}/document (or /credit_note) answers, for ever. The same key, owner and metadata as that
 * route (routes/invoice-documents, http/kept-document.ts): the one kept in R2, or, when none is yet,
 * rendered by the documents Worker and kept unless another rendering got there first (whose bytes are
 * then the document's).
 */
export async function documentBytes(
  env: Pick<Bindings, "DOCUMENTS" | "RENDERER">,
  invoice: InvoiceRow,
  lines: () => Promise<InvoiceLineRow[]>,
  kind: DocumentKind,
  format: InvoiceFormat,
): Promise<Uint8Array> {
  const key = `invoices/${invoice.id}/${kind}.${format}`;
  const owner = invoice.customerId;
  const stored = await env.DOCUMENTS.get(key);
  if (stored && (stored.customMetadata?.owner ?? stored.customMetadata?.customer) === owner)
    return new Uint8Array(await stored.arrayBuffer());
  const number = kind === "credit_note" ? invoice.cancellationNumber! : invoice.number;
  const { contentType, extension } = FORMATS[format];
  const rendered = await env.RENDERER.render(eInvoiceOf(invoice, await lines(), kind), format);
  const bytes = typeof rendered === "string" ? new TextEncoder().encode(rendered) : rendered;
  const put = await env.DOCUMENTS.put(key, bytes, {
    httpMetadata: { contentType, contentDisposition: `attachment; filename="${number}.${extension}"` },
    customMetadata: { owner },
    onlyIf: new Headers({ "If-None-Match": "*" }),
  });
  if (put) return bytes;
  const first = await env.DOCUMENTS.get(key);
  return first ? new Uint8Array(await first.arrayBuffer()) : bytes;
}
