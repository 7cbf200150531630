import { EVENT_RETENTION_DAYS, EVENT_TYPES } from "../../domain/events";
import { NO_BODY } from "../../http/request-body";
import type { RouteSpec } from "../../http/route";
import { filter, listQuery } from "../../pagination/query";
import { listOf } from "../../schemas/envelopes";
import { Event } from "../../schemas/event";

const EventList = listOf("EventList", Event);

export const listEvents = {
  method: "get",
  path: "/events",
  operationId: "listEvents",
  tag: "Events",
  access: { scope: "events:read", tenant: true },
  body: NO_BODY,
  query: listQuery({ type: filter("Only events of this type.", EVENT_TYPES) }),
  success: { status: 200, schema: EventList },
  docs: {
    tag:
      "The customer's event log: every change a client may react to, newest first, " +
      `kept ${EVENT_RETENTION_DAYS} days.`,
    summary: "List the customer's events, newest first",
    description:
      "Every change a client may react to, newest first (created_at, then id, descending), " +
      `kept ${EVENT_RETENTION_DAYS} days. The same events are delivered to the customer's webhook endpoints.`,
    success: "A page of events.",
  },
} satisfies RouteSpec;
