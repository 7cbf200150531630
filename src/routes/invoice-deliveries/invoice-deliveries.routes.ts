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

// docs/api.md part 17. Answered by the jobs Worker (`worker: "jobs"`), which sends the e-mails.

const TAG = "Invoices";
const params = z.object({ id: pathId(invoiceLifecycle.noun) });
const InvoiceDeliveryList = listOf("InvoiceDeliveryList", InvoiceDelivery);

export const listInvoiceDeliveries = {
  method: "get",
  path: "/invoices/{id}/deliveries",
  operationId: "listInvoiceDeliveries",
  tag: TAG,
  worker: "jobs",
  access: { scope: "invoices:read", tenant: true },
  body: NO_BODY,
  query: listQuery({}),
  params,
  docs: {
    summary: "List the e-mails of an invoice's documents, oldest first",
    description:
      "Every delivery of the invoice and of its credit note: the automatic one written when it was issued (and " +
      "cancelled), and each one asked for since. `state`: pending, then sent (with Email Service's `message_id`), " +
      "then delivered or bounced as the service reports; failed (with `error`) when sending did not work; skipped " +
      "when the billing profile's invoice_delivery is none.",
    success: "A page of deliveries.",
  },
  success: { status: 200, schema: InvoiceDeliveryList },
} satisfies RouteSpec;

export const createInvoiceDelivery = {
  method: "post",
  path: "/invoices/{id}/deliveries",
  operationId: "createInvoiceDelivery",
  tag: TAG,
  worker: "jobs",
  access: { scope: "invoices:write", tenant: true },
  body: CreateInvoiceDelivery,
  query: NO_QUERY,
  params,
  errors: ["conflict", "invalid_state"],
  docs: {
    summary: "E-mail the invoice (or its credit note) again",
    description:
      "Sends the invoice's document, or with `document: credit_note` its credit note (409 invalid_state before the " +
      "invoice is cancelled), to the billing profile's e-mail unless `recipient` names another address, in `format` " +
      "or the profile's invoice_format. Sent off the request within a minute: events invoice_delivery.sent or " +
      "invoice_delivery.failed. An invoice issued without documents answers 409 conflict.",
    success: "The delivery, pending.",
  },
  success: { status: 201, schema: InvoiceDeliveryList },
} satisfies RouteSpec;

export const listAllInvoiceDeliveries = {
  method: "get",
  path: "/invoice_deliveries",
  operationId: "listAllInvoiceDeliveries",
  tag: TAG,
  worker: "jobs",
  access: { scope: "payments:read", tenant: false },
  body: NO_BODY,
  query: listQuery({
    state: filter("Only deliveries in this state.", DELIVERY_STATES),
    invoice_id: anyFilter("Only the deliveries of this invoice."),
  }),
  docs: {
    summary: "List every document e-mail, newest first",
    description:
      "The accounts department's view of every delivery of every customer, newest first; filter by `state` (e.g. " +
      "`failed` or `bounced`: buyers who did not get their documents) and `invoice_id`.",
    success: "A page of deliveries.",
  },
  success: { status: 200, schema: InvoiceDeliveryList },
} satisfies RouteSpec;

/** This folder's routes, in the route table's order (src/app.ts: the jobs Worker binds their handlers). */
export const invoiceDeliveryRoutes = [listInvoiceDeliveries, createInvoiceDelivery, listAllInvoiceDeliveries];
