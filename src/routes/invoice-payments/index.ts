import { endpoint } from "../../http/route";
import * as handlers from "./invoice-payments.handlers";
import * as routes from "./invoice-payments.routes";

export const invoicePaymentEndpoints = [
  endpoint(routes.listInvoicePayments, handlers.listInvoicePayments),
  endpoint(routes.getInvoiceBalance, handlers.getInvoiceBalance),
];
