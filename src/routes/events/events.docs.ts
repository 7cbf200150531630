import { EVENT_RETENTION_DAYS } from "../../domain/events";
import type { RouteDocs } from "../../http/route";

/** The prose of events.routes.ts in the OpenAPI document, by operationId. */
export const eventDocs: Record<string, RouteDocs> = {
  listEvents: {
    tag:
      "The customer's event log: every change a client may react to, newest first, " +
      `kept ${EVENT_RETENTION_DAYS} days.`,
    summary: "List the customer's events, newest first",
    description:
      "Every change a client may react to, newest first (created_at, then id, descending), " +
      `kept ${EVENT_RETENTION_DAYS} days. The same events are delivered to the customer's webhook endpoints.`,
    success: "A page of events.",
  },
};
