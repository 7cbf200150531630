import { invoiceLifecycle } from "../../domain/invoices";
import type { RouteDocs } from "../../http/route";
import { transitionDocs } from "../transition-route.docs";

/** The prose of invoices.routes.ts in the OpenAPI document, by operationId. */
export const invoiceDocs: Record<string, RouteDocs> = {
  createInvoice: {
    tag: "Invoices of card orders (INV-YYYY-NNNNNN, gapless per year): open → paid, or cancelled (CN-YYYY-NNNNNN).",
    summary: "Invoice a card order (state open, numbered INV-YYYY-NNNNNN)",
    description:
      "Books the invoice today in BUSINESS_TIME_ZONE (default Europe/Berlin), due in 14 days, with the order's " +
      "payment method and cost center, " +
      "and links it as the order's `invoice`. An unknown or foreign order_id is a 422 on /order_id; " +
      "an order that has an invoice, 409 conflict; a cancelled order, 409 invalid_state.",
    success: "The new invoice, as a single-page list envelope.",
  },
  listInvoices: {
    summary: "List the customer's invoices, newest first",
    description:
      "Pages the customer's invoices, newest first (created_at, then id, descending), " +
      "optionally filtered by state and by card order.",
    success: "A page of invoices.",
  },
  getInvoice: {
    summary: "Get an invoice",
    description: "One invoice of the customer; another customer's invoice answers 404 like one that does not exist.",
    success: "The invoice.",
  },
  listInvoiceLines: {
    summary: "List an invoice's lines, by position",
    description:
      "Pages the invoice's lines in position order, ascending; total_entries is the number of its lines. " +
      "An invoice issued before invoices had lines has none.",
    success: "A page of lines.",
  },
  ...transitionDocs(invoiceLifecycle, "Invoice", {
    cancel:
      "Sets cancelled_at and a cancellation number CN-YYYY-NNNNNN (gapless per year in BUSINESS_TIME_ZONE); " +
      "invoices are never deleted or renumbered. ",
  }),
};
