import * as z from "zod/mini";
import { invoiceLifecycle, type InvoiceAction } from "../../domain/invoices";
import { NO_BODY } from "../../http/request-body";
import { NO_QUERY } from "../../http/request-query";
import type { RouteSpec } from "../../http/route";
import { anyFilter, filter, listQuery } from "../../pagination/query";
import { dataOf, listOf } from "../../schemas/envelopes";
import { pathId } from "../../schemas/formats";
import { CreateInvoice, Invoice } from "../../schemas/invoice";
import { InvoiceLine } from "../../schemas/invoice-line";
import { transitionRoute } from "../transition-route";

const TAG = "Invoices";

const InvoiceList = listOf("InvoiceList", Invoice);
const InvoiceData = dataOf("InvoiceData", Invoice);

export const createInvoice = {
  method: "post",
  path: "/invoices",
  operationId: "createInvoice",
  tag: TAG,
  access: { scope: "invoices:write", tenant: true },
  body: CreateInvoice,
  query: NO_QUERY,
  errors: ["invalid_state", "conflict"],
  success: { status: 201, schema: InvoiceList },
} satisfies RouteSpec;

export const listInvoices = {
  method: "get",
  path: "/invoices",
  operationId: "listInvoices",
  tag: TAG,
  access: { scope: "invoices:read", tenant: true },
  body: NO_BODY,
  query: listQuery({
    state: filter("Only invoices in this state.", invoiceLifecycle.states),
    order_id: anyFilter("Only the invoice of this card order."),
  }),
  success: { status: 200, schema: InvoiceList },
} satisfies RouteSpec;

export const getInvoice = {
  method: "get",
  path: "/invoices/{id}",
  operationId: "getInvoice",
  tag: TAG,
  access: { scope: "invoices:read", tenant: true },
  body: NO_BODY,
  query: NO_QUERY,
  params: z.object({ id: pathId(invoiceLifecycle.noun) }),
  success: { status: 200, schema: InvoiceData },
} satisfies RouteSpec;

const InvoiceLineList = listOf("InvoiceLineList", InvoiceLine);

export const listInvoiceLines = {
  method: "get",
  path: "/invoices/{id}/lines",
  operationId: "listInvoiceLines",
  tag: TAG,
  access: { scope: "invoices:read", tenant: true },
  body: NO_BODY,
  query: listQuery({}),
  params: z.object({ id: pathId(invoiceLifecycle.noun) }),
  success: { status: 200, schema: InvoiceLineList },
} satisfies RouteSpec;

export const transitionInvoice = (action: InvoiceAction) =>
  transitionRoute(invoiceLifecycle, action, {
    collection: "invoices",
    resource: "Invoice",
    tag: TAG,
    schema: InvoiceData,
  });
