import { cardOrderLifecycle } from "../../domain/card-orders";
import type { RouteDocs } from "../../http/route";
import { transitionDocs } from "../transition-route.docs";

/** The prose of card-orders.routes.ts in the OpenAPI document, by operationId. */
export const cardOrderDocs: Record<string, RouteDocs> = {
  createCardOrder: {
    tag:
      "A customer's orders of voucher cards: draft → submitted → in_production → delivered, or cancelled while draft " +
      "or submitted.",
    summary: "Create a card order (state draft)",
    description:
      "Creates a draft card order for the token's customer. Answers the new order as a single-page list envelope.",
    success: "The new card order, as a single-page list envelope.",
  },
  listCardOrders: {
    summary: "List the customer's card orders, newest first",
    description:
      "Pages the customer's card orders, newest first (created_at, then id, descending), " +
      "optionally only those in one state.",
    success: "A page of card orders.",
  },
  getCardOrder: {
    summary: "Get a card order",
    description: "One card order of the customer; another customer's order answers 404 like one that does not exist.",
    success: "The card order.",
  },
  ...transitionDocs(cardOrderLifecycle, "CardOrder"),
};
