import type { RouteDocs } from "../../http/route";

/** The prose of invoice-deliveries.routes.ts in the OpenAPI document, by operationId. */
export const invoiceDeliveryDocs: Record<string, RouteDocs> = {
  listInvoiceDeliveries: {
    summary: "List the e-mails of an invoice's documents, oldest first",
    description:
      "Every delivery of the invoice and of its credit note: the automatic one written when it was issued (and " +
      "cancelled), and each one asked for since. `state`: pending, then sent (with Email Service's `message_id`), " +
      "then delivered or bounced as the service reports; failed (with `error`) when sending did not work; skipped " +
      "when the billing profile's invoice_delivery is none.",
    success: "A page of deliveries.",
  },
  createInvoiceDelivery: {
    summary: "E-mail the invoice (or its credit note) again",
    description:
      "Sends the invoice's document, or with `document: credit_note` its credit note (409 invalid_state before the " +
      "invoice is cancelled), to the billing profile's e-mail unless `recipient` names another address, in `format` " +
      "or the profile's invoice_format. Sent off the request within a minute: events invoice_delivery.sent or " +
      "invoice_delivery.failed. An invoice issued without documents answers 409 conflict.",
    success: "The delivery, pending.",
  },
  listAllInvoiceDeliveries: {
    summary: "List every document e-mail, newest first",
    description:
      "The accounts department's view of every delivery of every customer, newest first; filter by `state` (e.g. " +
      "`failed` or `bounced`: buyers who did not get their documents) and `invoice_id`.",
    success: "A page of deliveries.",
  },
};
