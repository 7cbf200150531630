import type { Endpoint } from "../http/route";
import { bankStatementEndpoints } from "./bank-statements";
import { bankTransactionEndpoints } from "./bank-transactions";
import { directDebitCollectionEndpoints } from "./direct-debit-collections";
import { invoiceDocumentEndpoints } from "./invoice-documents";
import { invoicePaymentEndpoints } from "./invoice-payments";

/** The endpoints the jobs Worker answers (src/jobs), whose requests the API Worker passes on (http/pass-on.ts). */
export const jobsEndpoints: readonly Endpoint[] = [
  ...invoiceDocumentEndpoints,
  ...invoicePaymentEndpoints,
  ...bankStatementEndpoints,
  ...bankTransactionEndpoints,
  ...directDebitCollectionEndpoints,
];
