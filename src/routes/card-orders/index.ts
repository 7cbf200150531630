import { cardOrderLifecycle, type CardOrderAction } from "../../domain/card-orders";
import { endpoint, loadingEndpoint } from "../../http/route";
import * as handlers from "./card-orders.handlers";
import * as routes from "./card-orders.routes";

export const cardOrderEndpoints = [
  endpoint(routes.createCardOrder, handlers.createCardOrder),
  endpoint(routes.listCardOrders, handlers.listCardOrders),
  endpoint(routes.getCardOrder, handlers.getCardOrder),
  ...(Object.keys(cardOrderLifecycle.transitions) as CardOrderAction[]).map((action) =>
    loadingEndpoint(
      routes.transitionCardOrder(action),
      handlers.loadTransition(action),
      handlers.transitionCardOrder(action),
    ),
  ),
];
