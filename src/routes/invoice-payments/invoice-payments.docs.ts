import type { RouteDocs } from "../../http/route";

/** The prose of invoice-payments.routes.ts in the OpenAPI document, by operationId. */
export const invoicePaymentDocs: Record<string, RouteDocs> = {
  listInvoicePayments: {
    summary: "List an invoice's payments, oldest first",
    description:
      "Every payment allocated to the invoice: matched from a bank statement, allocated by a person, collected by " +
      "direct debit, or recorded by `pay`; a returned direct debit shows `returned_at` and its reason.",
    success: "A page of payments.",
  },
  getInvoiceBalance: {
    summary: "Get what is paid of an invoice and what is open",
    description:
      "Its ISO 11649 payment reference (the RF reference to quote), gross amount, what is allocated of it, and " +
      "what is still open (never below zero).",
    success: "The invoice's balance.",
  },
};
