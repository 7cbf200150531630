import { principalOf } from "../../auth/principal";
import * as queries from "../../db/notification-tokens";
import { database } from "../../http/database";
import { reply } from "../../http/reply";
import { endpoint, type Handler } from "../../http/route";
import { pageEnvelope } from "../../pagination/envelope";
import { pageRequest } from "../../pagination/query";
import { toNotificationDevice } from "../../schemas/notification-device";
import { MAX_DEVICES_PER_OWNER } from "./notification-tokens.routes";
import * as routes from "./notification-tokens.routes";

const registerNotificationToken: Handler<typeof routes.registerNotificationToken> = (c, { body }) => {
  const now = new Date().toISOString();
  const row = {
    ownerId: principalOf(c).sub,
    deviceIdentifier: body.device_identifier,
    value: body.value,
    createdAt: now,
    updatedAt: now,
  };
  return {
    status: 204,
    writes: [...queries.registerNotificationToken(database(c).orm, row, MAX_DEVICES_PER_OWNER)],
    body: undefined,
  };
};

const listNotificationTokens: Handler<typeof routes.listNotificationTokens> = async (c, { query }) => {
  const request = await pageRequest(c, query);
  const { rows, edges, total } = await queries.listNotificationTokens(database(c), principalOf(c).sub, request);
  return reply(c, 200, await pageEnvelope(c, request, rows.map(toNotificationDevice), total ?? 0, edges));
};

const deleteNotificationToken: Handler<typeof routes.deleteNotificationToken> = (c, { params }) => {
  const { orm } = database(c);
  return {
    status: 204,
    writes: [queries.deleteNotificationToken(orm, principalOf(c).sub, params.device_identifier)],
    body: undefined,
  };
};

/** This folder's routes, each with its handler (and load step), in the route table's order. */
export const notificationTokenEndpoints = [
  endpoint(routes.registerNotificationToken, registerNotificationToken),
  endpoint(routes.listNotificationTokens, listNotificationTokens),
  endpoint(routes.deleteNotificationToken, deleteNotificationToken),
];
