import * as z from "zod/mini";
import type { WebhookEndpointRow } from "../db/schema";
import { EVENT_TYPES } from "../domain/events";
import { webhookUrlProblem } from "../domain/webhooks";
import { dateTime, oneOf, requestBody } from "./formats";
import { named, namedResponse } from "./registry";

const MAX_URL_LENGTH = 2048;

const fields = () => ({
  id: z.string(),
  type: z.literal("webhook_endpoint"),
  url: z.string(),
  event_types: z
    .array(z.enum(["*", ...EVENT_TYPES]))
    .register(z.globalRegistry, { description: 'The event types delivered to the endpoint, or ["*"] for all.' }),
});

/** A webhook endpoint as listed: docs/api.md part 11's fields in its order, without the secret. */
export const WebhookEndpoint = namedResponse("WebhookEndpoint", () =>
  z.strictObject({ ...fields(), created_at: dateTime() }),
);

/** A webhook endpoint as created: with its signing secret, shown this once. */
export const NewWebhookEndpoint = namedResponse("NewWebhookEndpoint", () =>
  z.strictObject({
    ...fields(),
    secret: z.string().register(z.globalRegistry, {
      description: "whsec_ + base64 of 32 random bytes: the Standard Webhooks signing secret. Shown only here.",
    }),
    created_at: dateTime(),
  }),
);

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

export const CreateWebhookEndpoint = named(
  "CreateWebhookEndpoint",
  requestBody({
    // Here the URL's form; whether a local host is allowed depends on ALLOW_LOCAL_WEBHOOKS (the handler).
    url: z
      .string({ error: "must be a string" })
      .check(
        z.maxLength(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`),
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
      .array(oneOf(["*", ...EVENT_TYPES]), {
        error: "must be an array of event types",
      })
      .check(z.minLength(1, 'must name at least one event type, or be ["*"]'), z.superRefine(eventTypesProblems)),
  }),
);

type Listed = z.input<typeof WebhookEndpoint>;

export const toWebhookEndpoint = (row: WebhookEndpointRow): Listed => ({
  id: row.id,
  type: "webhook_endpoint",
  url: row.url,
  event_types: JSON.parse(row.eventTypes) as Listed["event_types"],
  created_at: row.createdAt,
});

/** The endpoint as created, with its secret in its place. */
export const withSecret = ({ created_at, ...head }: Listed, secret: string): z.input<typeof NewWebhookEndpoint> => ({
  ...head,
  secret,
  created_at,
});
