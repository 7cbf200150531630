import { WorkerEntrypoint } from "cloudflare:workers";
import type { InvoiceLineRow, InvoiceRow } from "../db/schema";
import { renderCii } from "./cii";
import { eInvoiceOf, type DocumentKind } from "./from-invoice";
import { renderUbl } from "./ubl";

export type DocumentFormat = "ubl" | "cii";

/**
 * The documents Worker (wrangler.documents.toml): renders an invoice's e-invoice for the API Worker,
 * which calls it over a service binding (RENDERER) the first time a document is asked for and
 * stores what it answers in R2. The renderers live here so that the API Worker's bundle, which
 * every request loads, carries none of them.
 */
export class Renderer extends WorkerEntrypoint {
  render(invoice: InvoiceRow, lines: InvoiceLineRow[], kind: DocumentKind, format: DocumentFormat): string {
    const document = eInvoiceOf(invoice, lines, kind);
    return format === "ubl" ? renderUbl(document) : renderCii(document);
  }
}

export default {
  fetch: () => new Response("The documents Worker answers its RPC binding only.", { status: 404 }),
} satisfies ExportedHandler;
