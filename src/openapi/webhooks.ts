import { componentOf, EVENT_TYPES } from "../domain/events";
import { MAX_ATTEMPTS, describeRetries } from "../events/retry";
import { DELIVERY_TIMEOUT_MS, FAST_LANE_TIMEOUT_MS } from "../events/webhook-delivery";
import { eventExample } from "./examples";

// OpenAPI 3.1 `webhooks`: what a webhook endpoint receives, one operation per event type, so that
// a generated receiver knows which resource each type carries (docs/api.md part 11).
const text = { type: "string" } as const;

const HEADERS = {
  "webhook-id": {
    description: "The event's id: the same on every attempt of a delivery, so a receiver dedupes on it.",
    required: true,
    schema: text,
  },
  "webhook-timestamp": {
    description: "Unix seconds when this attempt was signed; refuse a delivery far from your clock (replays).",
    required: true,
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
  "webhook-signature": {
    description:
      "`v1,` + base64 HMAC-SHA-256 of `<webhook-id>.<webhook-timestamp>.<body>` with the endpoint's secret (Standard " +
      "Webhooks); verify it before trusting the body.",
    required: true,
    schema: { type: "string", pattern: "^v1,[A-Za-z0-9+/]+={0,2}$" },
  },
};

const operationId = (type: string) => type.replace(/[._](\w)/g, (_, c: string) => c.toUpperCase());

/**
 * `event` is the JSON schema of the Event component; each type's payload narrows its `type` to that
 * type and its `data` to the resource it is about (its prefix names it: domain/events.ts `componentOf`).
 */
export function webhooks(event: { properties: Record<string, unknown> }) {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `${operationId(type)}Webhook`,
          summary: `${type}: sent to each endpoint subscribed to it (or to "*")`,
          description:
            `POSTed to the endpoint's URL, signed per Standard Webhooks. A 2xx within ` +
            `${DELIVERY_TIMEOUT_MS / 1000} s acknowledges it (an endpoint that takes over ` +
            `${FAST_LANE_TIMEOUT_MS / 1000} s is moved to a slow lane and may get the event again there); ` +
            `anything else (a redirect too, which is not followed) is retried ${describeRetries()}, ` +
            `${MAX_ATTEMPTS} attempts in all. Deliveries are at least once and may arrive out of order: dedupe ` +
            `on \`webhook-id\`, order by \`created_at\`.`,
          tags: ["Webhook endpoints"],
          security: [],
          parameters: Object.entries(HEADERS).map(([name, header]) => ({ name, in: "header", ...header })),
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  ...event,
                  properties: {
                    ...event.properties,
                    type: { type: "string", const: type },
                    data: { $ref: `#/components/schemas/${componentOf(type)}` },
                  },
                  examples: [eventExample(type, componentOf(type))],
                },
              },
            },
          },
          responses: {
            "2XX": { description: "Received: the delivery is done." },
            "4XX": {
              description:
                "Refused (a bad signature, say): retried like any failure, then sent to the dead-letter queue.",
            },
          },
        },
      },
    ]),
  );
}
