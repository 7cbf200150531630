import { endpoint } from "../../http/route";
import * as handlers from "./webhook-endpoints.handlers";
import * as routes from "./webhook-endpoints.routes";

export const webhookEndpointEndpoints = [
  endpoint(routes.createWebhookEndpoint, handlers.createWebhookEndpoint),
  endpoint(routes.listWebhookEndpoints, handlers.listWebhookEndpoints),
  endpoint(routes.deleteWebhookEndpoint, handlers.deleteWebhookEndpoint),
];
