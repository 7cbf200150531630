import * as z from "zod/mini";
import { cardOrderLifecycle, type CardOrderAction } from "../../domain/card-orders";
import { NO_BODY } from "../../http/request-body";
import { NO_QUERY } from "../../http/request-query";
import type { RouteSpec } from "../../http/route";
import { filter, listQuery } from "../../pagination/query";
import { CardOrder, CreateCardOrder } from "../../schemas/card-order";
import { dataOf, listOf } from "../../schemas/envelopes";
import { pathId } from "../../schemas/formats";
import { transitionRoute } from "../transition-route";

const TAG = "Card orders";

const CardOrderList = listOf("CardOrderList", CardOrder);
const CardOrderData = dataOf("CardOrderData", CardOrder);

export const createCardOrder = {
  method: "post",
  path: "/card_orders",
  operationId: "createCardOrder",
  tag: TAG,
  access: { scope: "card_orders:write", tenant: true },
  body: CreateCardOrder,
  query: NO_QUERY,
  success: { status: 201, schema: CardOrderList },
  docs: {
    tag:
      "A customer's orders of voucher cards: draft → submitted → in_production → delivered, or cancelled while draft " +
      "or submitted.",
    summary: "Create a card order (state draft)",
    description:
      "Creates a draft card order for the token's customer. Answers the new order as a single-page list envelope.",
    success: "The new card order, as a single-page list envelope.",
  },
} satisfies RouteSpec;

export const listCardOrders = {
  method: "get",
  path: "/card_orders",
  operationId: "listCardOrders",
  tag: TAG,
  access: { scope: "card_orders:read", tenant: true },
  body: NO_BODY,
  query: listQuery({ state: filter("Only card orders in this state.", cardOrderLifecycle.states) }),
  success: { status: 200, schema: CardOrderList },
  docs: {
    summary: "List the customer's card orders, newest first",
    description:
      "Pages the customer's card orders, newest first (created_at, then id, descending), " +
      "optionally only those in one state.",
    success: "A page of card orders.",
  },
} satisfies RouteSpec;

export const getCardOrder = {
  method: "get",
  path: "/card_orders/{id}",
  operationId: "getCardOrder",
  tag: TAG,
  access: { scope: "card_orders:read", tenant: true },
  body: NO_BODY,
  query: NO_QUERY,
  params: z.object({ id: pathId(cardOrderLifecycle.noun) }),
  success: { status: 200, schema: CardOrderData },
  docs: {
    summary: "Get a card order",
    description: "One card order of the customer; another customer's order answers 404 like one that does not exist.",
    success: "The card order.",
  },
} satisfies RouteSpec;

export const transitionCardOrder = (action: CardOrderAction) =>
  transitionRoute(cardOrderLifecycle, action, {
    collection: "card_orders",
    resource: "CardOrder",
    tag: TAG,
    schema: CardOrderData,
  });
