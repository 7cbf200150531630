import { endpoint } from "../../http/route";
import * as handlers from "./notification-tokens.handlers";
import * as routes from "./notification-tokens.routes";

export const notificationTokenEndpoints = [
  endpoint(routes.registerNotificationToken, handlers.registerNotificationToken),
  endpoint(routes.listNotificationTokens, handlers.listNotificationTokens),
  endpoint(routes.deleteNotificationToken, handlers.deleteNotificationToken),
];
