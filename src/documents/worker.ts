import { WorkerEntrypoint } from "cloudflare:workers";
import type { DocumentFormat, EInvoice } from "../domain/einvoice";
import { renderCii } from "./cii";
import { renderPdf } from "./pdf";
import { renderReminderPdf } from "./pdf/reminder";
import { renderUbl } from "./ubl";

/**
 * The documents Worker (wrangler.documents.toml): renders an e-invoice for the API Worker, which
 * calls it over a service binding (RENDERER) the first time a document is asked for, with the
 * invoice's kept data as the domain model (domain/einvoice.ts), and stores what it answers in R2. The
 * renderers (and the PDF's fonts) live here so that the API Worker's bundle, which every request
 * loads, carries none of them.
 */
export class Renderer extends WorkerEntrypoint {
  async render(document: EInvoice, format: DocumentFormat): Promise<string | Uint8Array> {
    if (format === "pdf") return renderPdf(document);
    return format === "ubl" ? renderUbl(document) : renderCii(document);
  }

  /** A reminder's letter (docs/api.md part 18): the invoice as stored, the reminder's figures, the seller's vars. */
  async renderReminder(letter: Parameters<typeof renderReminderPdf>[0]): Promise<Uint8Array> {
    return renderReminderPdf(letter);
  }
}

export default {
  fetch: () => new Response("The documents Worker answers its RPC binding only.", { status: 404 }),
} satisfies ExportedHandler;
