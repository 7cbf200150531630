import { customerOf } from "../../auth/principal";
import { listEvents as queryEvents } from "../../db/events";
import { database } from "../../http/database";
import { reply } from "../../http/reply";
import type { Handler } from "../../http/route";
import { pageEnvelope } from "../../pagination/envelope";
import { pageRequest } from "../../pagination/query";
import { toEvent } from "../../schemas/event";
import type * as routes from "./events.routes";

export const listEvents: Handler<typeof routes.listEvents> = async (c, { query }) => {
  const page = pageRequest(query);
  const { rows, total } = await queryEvents(database(c), customerOf(c), query.type, page);
  return reply(c, 200, pageEnvelope(c, page, rows.map(toEvent), total));
};
