import { invoiceLifecycle, type InvoiceAction } from "../../domain/invoices";
import { endpoint } from "../../http/route";
import * as handlers from "./invoices.handlers";
import * as routes from "./invoices.routes";

export const invoiceEndpoints = [
  endpoint(routes.createInvoice, handlers.createInvoice),
  endpoint(routes.listInvoices, handlers.listInvoices),
  endpoint(routes.getInvoice, handlers.getInvoice),
  endpoint(routes.listInvoiceLines, handlers.listInvoiceLines),
  ...(Object.keys(invoiceLifecycle.transitions) as InvoiceAction[]).map((action) =>
    endpoint(routes.transitionInvoice(action), handlers.transitionInvoice(action)),
  ),
];
