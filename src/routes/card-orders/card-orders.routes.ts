import * as z from "zod/mini";
import {
  CARD_ORDER_STATE_LABELS,
  cardOrderLifecycle,
  PAYMENT_METHODS,
  VOUCHER_CATEGORIES,
  type CardOrderAction,
} from "../../domain/card-orders";
import { dataOf, dateTime, listOf, named } from "../../http/openapi";
import type { RouteSpec } from "../../http/route";
import { oneOf, optionalText, requestBody } from "../../http/validation";
import { filterDoc, PAGE_PARAMETERS } from "../../pagination";
import { transitionRoute } from "../transition";

const TAG = "Card orders";

export const CreateCardOrder = named(
  "CreateCardOrder",
  requestBody({
    voucher_category: oneOf(VOUCHER_CATEGORIES),
    description: optionalText(255),
    invoice_reference: optionalText(255),
    cost_center: optionalText(255),
    payment_method: oneOf(PAYMENT_METHODS),
  }),
);

export const InvoiceLink = named("InvoiceLink", z.object({ id: z.string(), type: z.literal("invoice"), number: z.string() }));

export const CardOrder = named(
  "CardOrder",
  z.object({
    id: z.string(),
    state: z.enum(cardOrderLifecycle.states),
    state_label: z.enum(Object.values(CARD_ORDER_STATE_LABELS)),
    created_at: dateTime(),
    updated_at: dateTime(),
    submitted_at: z.nullable(dateTime()),
    production_started_at: z.nullable(dateTime()),
    delivered_at: z.nullable(dateTime()),
    is_cancellable: z.boolean(),
    customer: z.nullable(z.string()),
    description: z.nullable(z.string()),
    invoice_reference: z.nullable(z.string()),
    cost_center: z.nullable(z.string()),
    payment_method: z.nullable(z.enum(PAYMENT_METHODS)),
    invoice: z.nullable(InvoiceLink),
    production_invoice: z.nullable(InvoiceLink),
    shipping_invoice: z.nullable(InvoiceLink),
    voucher_category: z.enum(VOUCHER_CATEGORIES),
    entries_count: z.int(),
  }),
);

export const CardOrderList = listOf("CardOrderList", CardOrder);
export const CardOrderData = dataOf("CardOrderData", CardOrder);

export const createCardOrder = {
  method: "post",
  path: "/card_orders",
  operationId: "createCardOrder",
  summary: "Create a card order (state draft)",
  tag: TAG,
  access: { scope: "card_orders:write", tenant: true },
  body: CreateCardOrder,
  success: { status: 201, description: "The new card order, as a single-page list envelope.", schema: CardOrderList },
} satisfies RouteSpec;

export const listCardOrders = {
  method: "get",
  path: "/card_orders",
  operationId: "listCardOrders",
  summary: "List the customer's card orders, newest first",
  tag: TAG,
  access: { scope: "card_orders:read", tenant: true },
  query: [...PAGE_PARAMETERS, filterDoc("state", "Only card orders in this state.", cardOrderLifecycle.states)],
  success: { status: 200, description: "A page of card orders.", schema: CardOrderList },
} satisfies RouteSpec;

export const getCardOrder = {
  method: "get",
  path: "/card_orders/{id}",
  operationId: "getCardOrder",
  summary: "Get a card order",
  tag: TAG,
  access: { scope: "card_orders:read", tenant: true },
  success: { status: 200, description: "The card order.", schema: CardOrderData },
} satisfies RouteSpec;

export const transitionCardOrder = (action: CardOrderAction) =>
  transitionRoute(cardOrderLifecycle, action, { collection: "card_orders", resource: "CardOrder", tag: TAG, schema: CardOrderData });
