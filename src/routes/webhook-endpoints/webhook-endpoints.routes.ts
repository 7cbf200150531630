import * as z from "zod/mini";
import { MAX_WEBHOOK_ENDPOINTS } from "../../domain/webhooks";
import { NO_BODY } from "../../http/request-body";
import { NO_QUERY } from "../../http/request-query";
import { NO_CONTENT, type RouteSpec } from "../../http/route";
import { listQuery } from "../../pagination/query";
import { listOf } from "../../schemas/envelopes";
import { pathId } from "../../schemas/formats";
import { CreateWebhookEndpoint, NewWebhookEndpoint, WebhookEndpoint } from "../../schemas/webhook-endpoint";

const TAG = "Webhook endpoints";
const ACCESS = { scope: "webhooks:write", tenant: true } as const;

const NewWebhookEndpointList = listOf("NewWebhookEndpointList", NewWebhookEndpoint);
const WebhookEndpointList = listOf("WebhookEndpointList", WebhookEndpoint);

export const createWebhookEndpoint = {
  method: "post",
  path: "/webhook_endpoints",
  operationId: "createWebhookEndpoint",
  tag: TAG,
  access: ACCESS,
  body: CreateWebhookEndpoint,
  query: NO_QUERY,
  errors: ["conflict"],
  success: { status: 201, schema: NewWebhookEndpointList },
  docs: {
    tag:
      "Where the customer's events are POSTed, signed as Standard Webhooks specifies; the secret is shown once, when " +
      "the endpoint is created.",
    summary: "Subscribe an https endpoint to the customer's events",
    description:
      "Deliveries follow Standard Webhooks: the event as JSON, signed with the `secret` answered here " +
      `and never shown again. At most ${MAX_WEBHOOK_ENDPOINTS} endpoints per customer (the next one: 409 conflict).`,
    success: "The new endpoint with its signing secret, as a single-page list envelope.",
  },
} satisfies RouteSpec;

export const listWebhookEndpoints = {
  method: "get",
  path: "/webhook_endpoints",
  operationId: "listWebhookEndpoints",
  tag: TAG,
  access: ACCESS,
  body: NO_BODY,
  query: listQuery({}),
  success: { status: 200, schema: WebhookEndpointList },
  docs: {
    summary: "List the customer's webhook endpoints, newest first",
    description: "Pages the customer's endpoints, newest first; never a secret.",
    success: "A page of endpoints.",
  },
} satisfies RouteSpec;

export const deleteWebhookEndpoint = {
  method: "delete",
  path: "/webhook_endpoints/{id}",
  operationId: "deleteWebhookEndpoint",
  tag: TAG,
  access: ACCESS,
  body: NO_BODY,
  query: NO_QUERY,
  params: z.object({ id: pathId("webhook endpoint") }),
  success: { status: 204, schema: NO_CONTENT },
  docs: {
    summary: "Stop deliveries to an endpoint",
    description:
      "No further attempt reaches it, also not the retries of earlier events. " +
      "An unknown, deleted or another customer's endpoint answers 404.",
    success: "Deleted.",
  },
} satisfies RouteSpec;
