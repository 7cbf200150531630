import * as z from "zod/mini";
import { DELIVERY_STATES } from "../../domain/deliveries";
import { invoiceLifecycle } from "../../domain/invoices";
import { NO_BODY } from "../../http/request-body";
import { NO_QUERY } from "../../http/request-query";
import type { RouteSpec } from "../../http/route";
import { anyFilter, filter, listQuery } from "../../pagination/query";
import { listOf } from "../../schemas/envelopes";
import { pathId } from "../../schemas/formats";
import { CreateInvoiceDelivery, InvoiceDelivery } from "../../schemas/invoice-delivery";

// docs/api.md part 17. Answered by the jobs Worker (http/pass-on.ts).

const TAG = "Invoices";
const params = z.object({ id: pathId(invoiceLifecycle.noun) });
const InvoiceDeliveryList = listOf("InvoiceDeliveryList", InvoiceDelivery);

export const listInvoiceDeliveries = {
  method: "get",
  path: "/invoices/{id}/deliveries",
  operationId: "listInvoiceDeliveries",
  tag: TAG,
  access: { scope: "invoices:read", tenant: true },
  body: NO_BODY,
  query: listQuery({}),
  params,
  success: { status: 200, schema: InvoiceDeliveryList },
} satisfies RouteSpec;

export const createInvoiceDelivery = {
  method: "post",
  path: "/invoices/{id}/deliveries",
  operationId: "createInvoiceDelivery",
  tag: TAG,
  access: { scope: "invoices:write", tenant: true },
  body: CreateInvoiceDelivery,
  query: NO_QUERY,
  params,
  errors: ["conflict", "invalid_state"],
  success: { status: 201, schema: InvoiceDeliveryList },
} satisfies RouteSpec;

export const listAllInvoiceDeliveries = {
  method: "get",
  path: "/invoice_deliveries",
  operationId: "listAllInvoiceDeliveries",
  tag: TAG,
  access: { scope: "payments:read", tenant: false },
  body: NO_BODY,
  query: listQuery({
    state: filter("Only deliveries in this state.", DELIVERY_STATES),
    invoice_id: anyFilter("Only the deliveries of this invoice."),
  }),
  success: { status: 200, schema: InvoiceDeliveryList },
} satisfies RouteSpec;
