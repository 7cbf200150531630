import { EVENT_TYPES } from "../../domain/events";
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
} satisfies RouteSpec;
