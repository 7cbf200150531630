import type { Endpoint } from "../http/route";
import { bankStatementEndpoints } from "./bank-statements/bank-statements.handlers";
import { bankTransactionEndpoints } from "./bank-transactions/bank-transactions.handlers";
import { directDebitCollectionEndpoints } from "./direct-debit-collections/direct-debit-collections.handlers";
import { invoiceDeliveryEndpoints } from "./invoice-deliveries/invoice-deliveries.handlers";
import { invoiceDocumentEndpoints } from "./invoice-documents/invoice-documents.handlers";
import { invoicePaymentEndpoints } from "./invoice-payments/invoice-payments.handlers";

/** The endpoints the jobs Worker answers (src/jobs), whose requests the API Worker passes on (http/pass-on.ts). */
export const jobsEndpoints: readonly Endpoint[] = [
  ...invoiceDocumentEndpoints,
  ...invoicePaymentEndpoints,
  ...invoiceDeliveryEndpoints,
  ...bankStatementEndpoints,
  ...bankTransactionEndpoints,
  ...directDebitCollectionEndpoints,
];
