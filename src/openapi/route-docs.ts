import type { RouteDocs } from "../http/route";
import { bankStatementDocs } from "../routes/bank-statements/bank-statements.docs";
import { bankTransactionDocs } from "../routes/bank-transactions/bank-transactions.docs";
import { directDebitCollectionDocs } from "../routes/direct-debit-collections/direct-debit-collections.docs";
import { billingProfileDocs } from "../routes/billing-profile/billing-profile.docs";
import { cardOrderDocs } from "../routes/card-orders/card-orders.docs";
import { entryDocs } from "../routes/entries/entries.docs";
import { eventDocs } from "../routes/events/events.docs";
import { invoiceDocumentDocs } from "../routes/invoice-documents/invoice-documents.docs";
import { invoicePaymentDocs } from "../routes/invoice-payments/invoice-payments.docs";
import { invoiceDocs } from "../routes/invoices/invoices.docs";
import { metaDocs } from "../routes/meta/meta.docs";
import { notificationTokenDocs } from "../routes/notification-tokens/notification-tokens.docs";
import { webhookEndpointDocs } from "../routes/webhook-endpoints/webhook-endpoints.docs";

/**
 * Every route's prose, by operationId. Only document.ts reads it, at build time: the Worker's bundle
 * carries none of it (about 1.8 KiB of gzip). document.ts refuses an operation without docs and docs
 * without an operation; an operationId documented twice is refused here.
 */
export const ROUTE_DOCS = new Map<string, RouteDocs>();
for (const docs of [
  cardOrderDocs,
  entryDocs,
  invoiceDocs,
  invoiceDocumentDocs,
  billingProfileDocs,
  notificationTokenDocs,
  eventDocs,
  webhookEndpointDocs,
  invoicePaymentDocs,
  bankStatementDocs,
  bankTransactionDocs,
  directDebitCollectionDocs,
  metaDocs,
]) {
  for (const [operationId, texts] of Object.entries(docs)) {
    if (ROUTE_DOCS.has(operationId)) throw new Error(`${operationId}: documented twice`);
    ROUTE_DOCS.set(operationId, texts);
  }
}
