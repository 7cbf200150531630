import { principalOf } from "../../auth";
import { database } from "../../db";
import * as queries from "../../db/notification-tokens";
import { jsonResponse } from "../../http/json";
import type { Handler } from "../../http/route";
import { commit } from "../../idempotency";
import { pageEnvelope, pageRequest } from "../../pagination";
import type * as routes from "./notification-tokens.routes";

export const registerNotificationToken: Handler<typeof routes.registerNotificationToken> = (c, body) => {
  const now = new Date().toISOString();
  const row = { ownerId: principalOf(c).sub, deviceIdentifier: body.device_identifier, value: body.value, createdAt: now, updatedAt: now };
  return commit(c, [...queries.registerNotificationToken(database(c).orm, row)], { status: 204 });
};

export const listNotificationTokens: Handler<typeof routes.listNotificationTokens> = async (c) => {
  const page = pageRequest(c);
  const { rows, total } = await queries.listNotificationTokens(database(c), principalOf(c).sub, page);
  const data = rows.map((row) => ({ device_identifier: row.deviceIdentifier, created_at: row.createdAt, updated_at: row.updatedAt }));
  return jsonResponse(c, 200, JSON.stringify(pageEnvelope(c, page, data, total)));
};

export const deleteNotificationToken: Handler<typeof routes.deleteNotificationToken> = (c) => {
  const { orm } = database(c);
  return commit(c, [queries.deleteNotificationToken(orm, principalOf(c).sub, c.req.param("device_identifier") ?? "")], { status: 204 });
};
