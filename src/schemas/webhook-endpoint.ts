import * as z from "zod/mini";
import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { EVENT_TYPES, type EventType } from "../domain/events";
import { webhookUrlProblem } from "../domain/webhooks";
import { dateTime, oneOf, requestBody } from "./formats";
import { namedRequest } from "./registry";
import { type Makers, resource } from "./resource";

const MAX_URL_LENGTH = 2048;

/** Where a customer's events go (Standard Webhooks). The signing secret is stored encrypted. */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    customerId: text("customer_id").notNull(),
    url: text("url").notNull(),
    // JSON array of event types, or ["*"].
    eventTypes: text("event_types").notNull(),
    // AES-GCM under a key derived from APP_SECRET, sealed for this id: a database read alone does not reveal it.
    encryptedSecret: text("encrypted_secret").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("webhook_endpoints_customer_created").on(t.customerId, t.createdAt, t.id)],
);

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

type EventTypes = ("*" | EventType)[];

/** The fields an endpoint shows before its secret (docs/api.md part 11's order). */
const head = <Row extends WebhookEndpointRow>(f: Makers<Row>) => ({
  id: f.column(z.string),
  type: f.from(
    () => z.literal("webhook_endpoint"),
    () => "webhook_endpoint" as const,
  ),
  url: f.column(z.string),
  event_types: f.from(
    () =>
      z
        .array(z.enum(["*", ...EVENT_TYPES]))
        .register(z.globalRegistry, { description: 'The event types delivered to the endpoint, or ["*"] for all.' }),
    (row) => JSON.parse(row.eventTypes) as EventTypes,
  ),
});

const listed = resource<WebhookEndpointRow>()("WebhookEndpoint", (f) => ({
  ...head(f),
  created_at: f.column(dateTime),
}));

const created = resource<WebhookEndpointRow & { secret: string }>()("NewWebhookEndpoint", (f) => ({
  ...head(f),
  secret: f.column(() =>
    z.string().register(z.globalRegistry, {
      description: "whsec_ + base64 of 32 random bytes: the Standard Webhooks signing secret. Shown only here.",
    }),
  ),
  created_at: f.column(dateTime),
}));

/** A webhook endpoint as listed: docs/api.md part 11's fields in its order, without the secret. */
export const WebhookEndpoint = listed.schema;
export const toWebhookEndpoint = listed.show;

/** A webhook endpoint as created: with its signing secret, shown this once. */
export const NewWebhookEndpoint = created.schema;
export const withSecret = (row: WebhookEndpointRow, secret: string) => created.show({ ...row, secret });

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

export const CreateWebhookEndpoint = namedRequest("CreateWebhookEndpoint", () =>
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
