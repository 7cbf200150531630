import * as z from "zod/mini";
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
} satisfies RouteSpec;
