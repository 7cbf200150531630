import { bankStatementEndpoints } from "../routes/bank-statements/bank-statements.handlers";
import { bankTransactionEndpoints } from "../routes/bank-transactions/bank-transactions.handlers";
import { directDebitCollectionEndpoints } from "../routes/direct-debit-collections/direct-debit-collections.handlers";
import { invoiceDeliveryEndpoints } from "../routes/invoice-deliveries/invoice-deliveries.handlers";
import { invoiceDocumentEndpoints } from "../routes/invoice-documents/invoice-documents.handlers";
import { invoicePaymentEndpoints } from "../routes/invoice-payments/invoice-payments.handlers";
import { invoiceDunningEndpoints } from "../routes/invoice-dunning/invoice-dunning.handlers";
import { reminderEndpoints } from "../routes/reminders/reminders.handlers";

/**
 * The handlers of the jobs Worker's routes (`worker: "jobs"`), each folder's list. The route table
 * (src/app.ts) holds these routes by their specs alone, since the API Worker imports it; the jobs Worker
 * binds each to its handler here by its spec, and does not start while the two disagree (http/app.ts).
 */
export const jobsHandlers = [
  ...invoiceDocumentEndpoints,
  ...invoicePaymentEndpoints,
  ...invoiceDeliveryEndpoints,
  ...bankStatementEndpoints,
  ...bankTransactionEndpoints,
  ...directDebitCollectionEndpoints,
  ...invoiceDunningEndpoints,
  ...reminderEndpoints,
];
