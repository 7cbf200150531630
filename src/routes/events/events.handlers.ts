import { customerOf } from "../../auth/principal";
import { listEvents as queryEvents } from "../../db/events";
import { database } from "../../http/database";
import { reply } from "../../http/reply";
import { endpoint, type Handler } from "../../http/route";
import { pageEnvelope } from "../../pagination/envelope";
import { pageRequest } from "../../pagination/query";
import { toEvent } from "../../schemas/event";
import * as routes from "./events.routes";

const listEvents: Handler<typeof routes.listEvents> = async (c, { query }) => {
  const request = await pageRequest(c, query);
  const { rows, edges, total } = await queryEvents(database(c), customerOf(c), query.type, request);
  return reply(c, 200, await pageEnvelope(c, request, rows.map(toEvent), total ?? 0, edges));
};

/** This folder's routes, each with its handler (and load step), in the route table's order. */
export const eventEndpoints = [endpoint(routes.listEvents, listEvents)];
