import { WorkerEntrypoint } from "cloudflare:workers";
import type { InvoiceLineRow, InvoiceRow } from "../db/schema";
import { renderCii } from "./cii";
import { eInvoiceOf, type DocumentKind } from "./from-invoice";
import { renderPdf } from "./pdf";
import { renderUbl } from "./ubl";

export type DocumentFormat = "ubl" | "cii" | "pdf";

/**
 * The documents Worker (wrangler.documents.toml): renders an invoice's e-invoice for the API Worker,
 * which calls it over a service binding (RENDERER) the first time a document is asked for and
 * stores what it answers in R2. The renderers (and the PDF's fonts) live here so that the API
 * Worker's bundle, which every request loads, carries none of them.
 */
export class Renderer extends WorkerEntrypoint {
  async render(
    invoice: InvoiceRow,
    lines: InvoiceLineRow[],
    kind: DocumentKind,
    format: DocumentFormat,
  ): Promise<string | Uint8Array> {
    const document = eInvoiceOf(invoice, lines, kind);
    if (format === "pdf") return renderPdf(document);
    return format === "ubl" ? renderUbl(document) : renderCii(document);
  }
}

export default {
  fetch: () => new Response("The documents Worker answers its RPC binding only.", { status: 404 }),
} satisfies ExportedHandler;
