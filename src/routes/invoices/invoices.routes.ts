import * as z from "zod/mini";
import { cardOrderLifecycle } from "../../domain/card-orders";
import { invoiceLifecycle, type InvoiceAction } from "../../domain/invoices";
import { dataOf, date, dateTime, listOf, named } from "../../http/openapi";
import type { RouteSpec } from "../../http/route";
import { optionalText, requestBody } from "../../http/validation";
import { filterDoc, PAGE_PARAMETERS } from "../../pagination";
import { transitionRoute } from "../transition";
import { PAYMENT_METHODS } from "../../domain/card-orders";

const TAG = "Invoices";

export const CreateInvoice = named(
  "CreateInvoice",
  requestBody({
    order_id: z.string({ error: "must be the id of one of the customer's card orders" }),
    reference: optionalText(255),
  }),
);

const money = () => z.nullable(z.string().register(z.globalRegistry, { pattern: "^-?[0-9]+\\.[0-9]{2}$", description: "EUR, two decimals" }));

export const Invoice = named(
  "Invoice",
  z.object({
    id: z.string(),
    type: z.literal("invoice"),
    number: z.string().register(z.globalRegistry, { pattern: "^INV-[0-9]{4}-[0-9]{6,}$" }),
    state: z.enum(invoiceLifecycle.states),
    created_at: dateTime(),
    updated_at: dateTime(),
    booked_on: z.nullable(date()),
    service_period_start: z.nullable(date()),
    service_period_end: z.nullable(date()),
    creditor: z.string(),
    due_on: date(),
    paid_at: z.nullable(dateTime()),
    cancellation_number: z.string().register(z.globalRegistry, { description: '"" until the invoice is cancelled, then CN-YYYY-NNNNNN.' }),
    cancelled_at: z.nullable(dateTime()),
    gross_amount: money(),
    net_amount: money(),
    recipient: z.nullable(z.string()),
    orders: z.array(z.object({ id: z.string(), type: z.literal("card_order"), state: z.enum(cardOrderLifecycle.states) })),
    reference: z.nullable(z.string()),
    cost_center: z.nullable(z.string()),
    payment_method: z.enum(PAYMENT_METHODS),
  }),
);

export const InvoiceList = listOf("InvoiceList", Invoice);
export const InvoiceData = dataOf("InvoiceData", Invoice);

export const createInvoice = {
  method: "post",
  path: "/invoices",
  operationId: "createInvoice",
  summary: "Invoice a card order (state open, numbered INV-YYYY-NNNNNN)",
  description:
    "Books the invoice today (UTC), due in 14 days, with the order's payment method and cost center, and links it as the order's `invoice`. An unknown or foreign order_id is a 422 on /order_id; an order that has an invoice, 409 conflict; a cancelled order, 409 invalid_state.",
  tag: TAG,
  access: { scope: "invoices:write", tenant: true },
  body: CreateInvoice,
  errors: ["invalid_state", "conflict"],
  success: { status: 201, description: "The new invoice, as a single-page list envelope.", schema: InvoiceList },
} satisfies RouteSpec;

export const listInvoices = {
  method: "get",
  path: "/invoices",
  operationId: "listInvoices",
  summary: "List the customer's invoices, newest first",
  tag: TAG,
  access: { scope: "invoices:read", tenant: true },
  query: [...PAGE_PARAMETERS, filterDoc("state", "Only invoices in this state.", invoiceLifecycle.states), filterDoc("order_id", "Only the invoice of this card order.")],
  success: { status: 200, description: "A page of invoices.", schema: InvoiceList },
} satisfies RouteSpec;

export const getInvoice = {
  method: "get",
  path: "/invoices/{id}",
  operationId: "getInvoice",
  summary: "Get an invoice",
  tag: TAG,
  access: { scope: "invoices:read", tenant: true },
  success: { status: 200, description: "The invoice.", schema: InvoiceData },
} satisfies RouteSpec;

export const transitionInvoice = (action: InvoiceAction) =>
  transitionRoute(invoiceLifecycle, action, {
    collection: "invoices",
    resource: "Invoice",
    tag: TAG,
    schema: InvoiceData,
    effect: action === "cancel" ? "Sets cancelled_at and a cancellation number CN-YYYY-NNNNNN (gapless per UTC year); invoices are never deleted or renumbered. " : undefined,
  });
