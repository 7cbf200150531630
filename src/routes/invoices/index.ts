import { invoiceLifecycle, type InvoiceAction } from "../../domain/invoices";
import { endpoint, loadingEndpoint } from "../../http/route";
import * as handlers from "./invoices.handlers";
import * as routes from "./invoices.routes";

export const invoiceEndpoints = [
  loadingEndpoint(routes.createInvoice, handlers.loadCreateInvoice, handlers.createInvoice),
  endpoint(routes.listInvoices, handlers.listInvoices),
  endpoint(routes.getInvoice, handlers.getInvoice),
  endpoint(routes.listInvoiceLines, handlers.listInvoiceLines),
  ...(Object.keys(invoiceLifecycle.transitions) as InvoiceAction[]).map((action) =>
    loadingEndpoint(routes.transitionInvoice(action), handlers.loadInvoice, handlers.transitionInvoice(action)),
  ),
];
