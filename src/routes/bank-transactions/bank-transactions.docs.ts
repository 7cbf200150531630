import type { RouteDocs } from "../../http/route";

/** The prose of bank-transactions.routes.ts in the OpenAPI document, by operationId. */
export const bankTransactionDocs: Record<string, RouteDocs> = {
  listBankTransactions: {
    summary: "List the bank transactions, newest first",
    description:
      "Every transaction of the imported statements (duplicates are not stored twice), newest first; filter by " +
      "`state` (e.g. `unmatched`: what a person must look at) and `bank_statement_id`.",
    success: "A page of bank transactions.",
  },
  getBankTransaction: {
    summary: "Get a bank transaction",
    description: "What it is, what of it is allocated, and what is unapplied.",
    success: "The transaction.",
  },
  createAllocation: {
    summary: "Allocate what a transaction has unapplied to an invoice",
    description:
      "A person's decision for an `unmatched` or `overpaid` transaction: `amount` of it to the open invoice " +
      "`invoice_id`, recorded as a payment by bank transfer (events payment.received, and invoice.paid when it " +
      "settles the invoice). 409 beyond the transaction's unapplied or the invoice's open amount, or when the " +
      "invoice is not open; 422 for a malformed amount or an unknown invoice.",
    success: "The payment.",
  },
};
