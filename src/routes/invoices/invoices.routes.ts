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
  docs: {
    tag: "Invoices of card orders (INV-YYYY-NNNNNN, gapless per year): open → paid, or cancelled (CN-YYYY-NNNNNN).",
    summary: "Invoice a card order (state open, numbered INV-YYYY-NNNNNN)",
    description:
      "Books the invoice today in BUSINESS_TIME_ZONE (default Europe/Berlin), due in 14 days, with the order's " +
      "payment method and cost center, " +
      "and links it as the order's `invoice`. An unknown or foreign order_id is a 422 on /order_id; " +
      "an order that has an invoice, 409 conflict; a cancelled order, 409 invalid_state.",
    success: "The new invoice, as a single-page list envelope.",
  },
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
  docs: {
    summary: "List the customer's invoices, newest first",
    description:
      "Pages the customer's invoices, newest first (created_at, then id, descending), " +
      "optionally filtered by state and by card order.",
    success: "A page of invoices.",
  },
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
  docs: {
    summary: "Get an invoice",
    description: "One invoice of the customer; another customer's invoice answers 404 like one that does not exist.",
    success: "The invoice.",
  },
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
  docs: {
    summary: "List an invoice's lines, by position",
    description:
      "Pages the invoice's lines in position order, ascending; total_entries is the number of its lines. " +
      "An invoice issued before invoices had lines has none.",
    success: "A page of lines.",
  },
} satisfies RouteSpec;

/** What a transition does beyond changing the state, in its prose. */
const EFFECTS: Partial<Record<InvoiceAction, string>> = {
  cancel:
    "Sets cancelled_at and a cancellation number CN-YYYY-NNNNNN (gapless per year in BUSINESS_TIME_ZONE); " +
    "invoices are never deleted or renumbered. ",
};

export const transitionInvoice = (action: InvoiceAction) =>
  transitionRoute(invoiceLifecycle, action, {
    collection: "invoices",
    resource: "Invoice",
    tag: TAG,
    schema: InvoiceData,
    effects: EFFECTS[action],
  });
