// The requests the API Worker passes on, unread, to the jobs Worker (src/jobs), which answers them with
// the same pipeline (http/app.ts): the back office's (docs/api.md parts 15 and 16: bank statements,
// transactions, direct debit collections, document e-mails), an invoice's payments and balance, its
// documents and their e-mails (docs/api.md part 17). Their
// code (the statements' XML parser and matching, the documents' storage and rendering calls) stays out
// of the API Worker's bundle, which every customer's request loads (64 KiB gzip; BENCHMARKS.md).
const BACK_OFFICE = /^\/(?:bank_statements|bank_transactions|direct_debit_collections|invoice_deliveries)(?:\/|$)/;
const OF_AN_INVOICE = /^\/invoices\/[^/]+\/(?:payments|balance|document|credit_note|deliveries)$/;

/** Whether the jobs Worker answers a path (test/pass-on.test.ts holds the route table to it). */
export const isPassedOn = (path: string) => BACK_OFFICE.test(path) || OF_AN_INVOICE.test(path);
