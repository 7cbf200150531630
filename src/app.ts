import { specsOnly, type Route } from "./http/route";
import { billingProfileEndpoints } from "./routes/billing-profile/billing-profile.handlers";
import { cardOrderEndpoints } from "./routes/card-orders/card-orders.handlers";
import { entryEndpoints } from "./routes/entries/entries.handlers";
import { eventEndpoints } from "./routes/events/events.handlers";
import { invoiceEndpoints } from "./routes/invoices/invoices.handlers";
import { metaEndpoints } from "./routes/meta/meta.handlers";
import { notificationTokenEndpoints } from "./routes/notification-tokens/notification-tokens.handlers";
import { webhookEndpointEndpoints } from "./routes/webhook-endpoints/webhook-endpoints.handlers";
import { bankStatementRoutes } from "./routes/bank-statements/bank-statements.routes";
import { bankTransactionRoutes } from "./routes/bank-transactions/bank-transactions.routes";
import { directDebitCollectionRoutes } from "./routes/direct-debit-collections/direct-debit-collections.routes";
import { invoiceDocumentRoutes } from "./routes/invoice-documents/invoice-documents.routes";
import { invoicePaymentRoutes } from "./routes/invoice-payments/invoice-payments.routes";
import { invoiceDeliveryRoutes } from "./routes/invoice-deliveries/invoice-deliveries.routes";
import { invoiceDunningRoutes } from "./routes/invoice-dunning/invoice-dunning.routes";
import { reminderRoutes } from "./routes/reminders/reminders.routes";

/**
 * The route table: every route of the service, each folder of src/routes once, in the OpenAPI document's
 * order. Each Worker mounts the routes whose spec names it (http/app.ts), the API Worker passes on those
 * of the jobs Worker (http/pass-on.ts), the OpenAPI document and the tests that cover every route read it.
 * A folder of the API Worker is here with its handlers; one of the jobs Worker (`worker: "jobs"`) with
 * its specs alone, since the API Worker imports this table: its handlers are bound in src/jobs/handlers.ts.
 * (The imports' order, the API Worker's folders first, is the order in which their schemas enter the
 * document's components, schemas/registry.ts: a new folder's go last.)
 */
export const endpoints: readonly Route[] = [
  ...cardOrderEndpoints,
  ...entryEndpoints,
  ...invoiceEndpoints,
  ...billingProfileEndpoints,
  ...notificationTokenEndpoints,
  ...eventEndpoints,
  ...webhookEndpointEndpoints,
  ...metaEndpoints,
  ...specsOnly(invoiceDocumentRoutes),
  ...specsOnly(invoicePaymentRoutes),
  ...specsOnly(invoiceDeliveryRoutes),
  ...specsOnly(bankStatementRoutes),
  ...specsOnly(bankTransactionRoutes),
  ...specsOnly(directDebitCollectionRoutes),
  ...specsOnly(invoiceDunningRoutes),
  ...specsOnly(reminderRoutes),
];
