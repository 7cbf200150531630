import { MAX_WEBHOOK_ENDPOINTS } from "../../domain/webhooks";
import type { RouteDocs } from "../../http/route";

/** The prose of webhook-endpoints.routes.ts in the OpenAPI document, by operationId. */
export const webhookEndpointDocs: Record<string, RouteDocs> = {
  createWebhookEndpoint: {
    tag:
      "Where the customer's events are POSTed, signed as Standard Webhooks specifies; the secret is shown once, when " +
      "the endpoint is created.",
    summary: "Subscribe an https endpoint to the customer's events",
    description:
      "Deliveries follow Standard Webhooks: the event as JSON, signed with the `secret` answered here " +
      `and never shown again. At most ${MAX_WEBHOOK_ENDPOINTS} endpoints per customer (the next one: 409 conflict).`,
    success: "The new endpoint with its signing secret, as a single-page list envelope.",
  },
  listWebhookEndpoints: {
    summary: "List the customer's webhook endpoints, newest first",
    description: "Pages the customer's endpoints, newest first; never a secret.",
    success: "A page of endpoints.",
  },
  deleteWebhookEndpoint: {
    summary: "Stop deliveries to an endpoint",
    description:
      "No further attempt reaches it, also not the retries of earlier events. " +
      "An unknown, deleted or another customer's endpoint answers 404.",
    success: "Deleted.",
  },
};
