import * as z from "zod/mini";
import { invoiceLifecycle, type InvoiceAction } from "../../domain/invoices";
import { NO_BODY } from "../../http/request-body";
import { NO_QUERY } from "../../http/request-query";
import type { RouteSpec } from "../../http/route";
import { LISTED_DUNNING_STATES } from "../../domain/invoices";
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

/** An invoice route a back-office token (payments:read, no customer_id) may read across customers. */
const INVOICES_READ = { scope: "invoices:read", tenant: true, acrossCustomers: "payments:read" } as const;

export const listInvoices = {
  method: "get",
  path: "/invoices",
  operationId: "listInvoices",
  tag: TAG,
  access: INVOICES_READ,
  body: NO_BODY,
  query: listQuery({
    state: filter("Only invoices in this state.", invoiceLifecycle.states),
    order_id: anyFilter("Only the invoices of this card order. Not combined with overdue or dunning."),
    customer: anyFilter(
      "Only this customer's invoices (a customer_id). A customer's token lists its own only: another customer's " +
        "id gives an empty list.",
    ),
    overdue: filter(
      "`true`: only overdue invoices: open, with an open amount, and due before today in BUSINESS_TIME_ZONE.",
      ["true"],
    ),
    dunning: filter(
      "Only open invoices whose dunning is in this state (part 18): `active` (overdue, being chased), `held` " +
        "(stopped by a person), `ended` (the steps ran out). A paid or cancelled invoice's dunning is settled: " +
        "it is in none of these lists.",
      LISTED_DUNNING_STATES,
    ),
  }),
  success: { status: 200, schema: InvoiceList },
  docs: {
    summary: "List invoices, newest first: the customer's, or every customer's for the accounts department",
    description:
      "Pages invoices, newest first (created_at, then id, descending), optionally filtered by state, card order, " +
      "customer, overdue and dunning (filters combine: all must hold). A token with customer_id lists that " +
      "customer's invoices only (scope invoices:read); a token with payments:read and no customer_id lists every " +
      "customer's (the accounts department's view). total_entries is exact: kept counts, never a count of rows; " +
      "for `overdue=true` it counts the invoices overdue today, so it changes at midnight in BUSINESS_TIME_ZONE " +
      "without a write. order_id with overdue or dunning is 400 invalid_parameter on order_id.",
    success: "A page of invoices.",
  },
} satisfies RouteSpec;

export const getInvoice = {
  method: "get",
  path: "/invoices/{id}",
  operationId: "getInvoice",
  tag: TAG,
  access: INVOICES_READ,
  body: NO_BODY,
  query: NO_QUERY,
  params: z.object({ id: pathId(invoiceLifecycle.noun) }),
  success: { status: 200, schema: InvoiceData },
  docs: {
    summary: "Get an invoice",
    description:
      "One invoice of the customer; another customer's invoice answers 404 like one that does not exist. " +
      "A token with payments:read and no customer_id reads any customer's invoice (the accounts department).",
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
