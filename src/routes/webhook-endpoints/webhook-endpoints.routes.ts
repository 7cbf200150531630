import * as z from "zod/mini";
import { EVENT_TYPES } from "../../domain/events";
import { MAX_WEBHOOK_ENDPOINTS, MAX_WEBHOOK_URL_LENGTH, webhookUrlProblem } from "../../domain/webhooks";
import { NO_BODY } from "../../http/request-body";
import { NO_QUERY } from "../../http/request-query";
import { NO_CONTENT, type RouteSpec } from "../../http/route";
import { listQuery } from "../../pagination/query";
import { listOf } from "../../schemas/envelopes";
import { requestBody } from "../../schemas/formats";
import { named } from "../../schemas/registry";
import { NewWebhookEndpoint, WebhookEndpoint } from "../../schemas/webhook-endpoint";

const TAG = "Webhook endpoints";
const ACCESS = { scope: "webhooks:write", tenant: true } as const;

const eventTypesProblems = (types: string[], ctx: { issues: z.core.$ZodRawIssue[] }) => {
  types.forEach((type, i) => {
    const problem =
      type === "*" && types.length > 1
        ? 'must stand alone: ["*"] means every type'
        : types.indexOf(type) < i
          ? "must not repeat a type"
          : undefined;
    if (problem) ctx.issues.push({ code: "custom", message: problem, input: type, path: [i] });
  });
};

const CreateWebhookEndpoint = named(
  "CreateWebhookEndpoint",
  requestBody({
    // Here the URL's form; whether a local host is allowed depends on ALLOW_LOCAL_WEBHOOKS (the handler).
    url: z
      .string({ error: "must be a string" })
      .check(
        z.maxLength(MAX_WEBHOOK_URL_LENGTH, `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`),
        z.superRefine((url, ctx) => {
          const problem = webhookUrlProblem(url, true);
          if (problem) ctx.issues.push({ code: "custom", message: problem, input: url });
        }),
      )
      .register(z.globalRegistry, {
        format: "uri",
        description:
          'https; a host that is not globally reachable, also over http, only while ALLOW_LOCAL_WEBHOOKS is "true".',
      }),
    event_types: z
      .array(z.enum(["*", ...EVENT_TYPES], { error: `must be one of: *, ${EVENT_TYPES.join(", ")}` }), {
        error: "must be an array of event types",
      })
      .check(z.minLength(1, 'must name at least one event type, or be ["*"]'), z.superRefine(eventTypesProblems)),
  }),
);

const NewWebhookEndpointList = listOf("NewWebhookEndpointList", NewWebhookEndpoint);
const WebhookEndpointList = listOf("WebhookEndpointList", WebhookEndpoint);

export const createWebhookEndpoint = {
  method: "post",
  path: "/webhook_endpoints",
  operationId: "createWebhookEndpoint",
  summary: "Subscribe an https endpoint to the customer's events",
  description: `Deliveries follow Standard Webhooks: the event as JSON, signed with the \`secret\` answered here and never shown again. At most ${MAX_WEBHOOK_ENDPOINTS} endpoints per customer (the next one: 409 conflict).`,
  tag: TAG,
  access: ACCESS,
  body: CreateWebhookEndpoint,
  query: NO_QUERY,
  errors: ["conflict"],
  success: {
    status: 201,
    description: "The new endpoint with its signing secret, as a single-page list envelope.",
    schema: NewWebhookEndpointList,
  },
} satisfies RouteSpec;

export const listWebhookEndpoints = {
  method: "get",
  path: "/webhook_endpoints",
  operationId: "listWebhookEndpoints",
  summary: "List the customer's webhook endpoints, newest first",
  description: "Pages the customer's endpoints, newest first; never a secret.",
  tag: TAG,
  access: ACCESS,
  body: NO_BODY,
  query: listQuery({}),
  success: { status: 200, description: "A page of endpoints.", schema: WebhookEndpointList },
} satisfies RouteSpec;

export const deleteWebhookEndpoint = {
  method: "delete",
  path: "/webhook_endpoints/{id}",
  operationId: "deleteWebhookEndpoint",
  summary: "Stop deliveries to an endpoint",
  description:
    "No further attempt reaches it, also not the retries of earlier events. An unknown, deleted or another customer's endpoint answers 404.",
  tag: TAG,
  access: ACCESS,
  body: NO_BODY,
  query: NO_QUERY,
  success: { status: 204, description: "Deleted.", schema: NO_CONTENT },
} satisfies RouteSpec;
