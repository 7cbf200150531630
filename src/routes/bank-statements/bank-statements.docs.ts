import type { RouteDocs } from "../../http/route";

/** The prose of bank-statements.routes.ts in the OpenAPI document, by operationId. */
export const bankStatementDocs: Record<string, RouteDocs> = {
  createBankStatements: {
    tag:
      "Back office: the seller's bank statements (camt.053), read and matched to invoices off the request; their " +
      "transactions, and a person's allocation of what was not matched.",
    summary: "Import a camt.053 bank statement file",
    description:
      "The file itself as the body (Content-Type application/xml or text/xml, at most 10 MiB): an ISO 20022 " +
      "camt.053.001.02 or .08 statement of the seller's account (CREDITOR_IBAN). Answers 202 at once, with each " +
      "statement of the file in `processing`; their transactions are read and matched off the request, and the " +
      "statement turns `processed` (or `failed`, with `error`). A file that is not XML, not a camt.053 of these " +
      "versions, or holds a statement of another account is refused (422 invalid_document) with nothing stored. " +
      "A transaction already known (the same file twice, overlapping statements) is counted, never matched again.",
    success: "The file's statements, in file order; Location names the first.",
  },
  listBankStatements: {
    summary: "List the bank statements, newest first",
    description: "Every statement imported, with its counts.",
    success: "A page of bank statements.",
  },
  getBankStatement: {
    summary: "Get a bank statement",
    description: "Its state and counts: poll it until it is `processed` or `failed`.",
    success: "The statement.",
  },
};
