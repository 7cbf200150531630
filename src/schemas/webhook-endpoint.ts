import * as z from "zod/mini";
import type { WebhookEndpointRow } from "../db/schema";
import { EVENT_TYPES } from "../domain/events";
import { dateTime } from "./formats";
import { namedResponse } from "./registry";

const fields = () => ({
  id: z.string(),
  type: z.literal("webhook_endpoint"),
  url: z.string(),
  event_types: z
    .array(z.enum(["*", ...EVENT_TYPES]))
    .register(z.globalRegistry, { description: 'The event types delivered to the endpoint, or ["*"] for all.' }),
});

/** A webhook endpoint as listed: CONTRACT part 11's fields in its order, without the secret. */
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
