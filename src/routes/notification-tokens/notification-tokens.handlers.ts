import { principalOf } from "../../auth";
import { database } from "../../db";
import * as queries from "../../db/notification-tokens";
import { nextTimestamp } from "../../domain/lifecycle";
import { jsonResponse } from "../../errors";
import type { Handler } from "../../http/route";
import { commit } from "../../idempotency";
import { pageEnvelope, pageRequest } from "../../pagination";
import type * as routes from "./notification-tokens.routes";

export const registerNotificationToken: Handler<typeof routes.registerNotificationToken> = async (c, body) => {
  const { orm } = database(c);
  const ownerId = principalOf(c).sub;
  const existing = await queries.findNotificationToken(orm, ownerId, body.device_identifier);
  const now = new Date();
  const row = {
    ownerId,
    deviceIdentifier: body.device_identifier,
    value: body.value,
    createdAt: now.toISOString(), // kept by the upsert when the device was registered before
    updatedAt: existing ? nextTimestamp(existing.updatedAt, now) : now.toISOString(),
  };
  return commit(c, [...queries.registerNotificationToken(orm, row)], { status: 204 });
};

export const listNotificationTokens: Handler<typeof routes.listNotificationTokens> = async (c) => {
  const page = pageRequest(c);
  const { rows, total } = await queries.listNotificationTokens(database(c).orm, principalOf(c).sub, page);
  const data = rows.map((row) => ({ device_identifier: row.deviceIdentifier, created_at: row.createdAt, updated_at: row.updatedAt }));
  return jsonResponse(c, 200, JSON.stringify(pageEnvelope(c, page, data, total)));
};

export const deleteNotificationToken: Handler<typeof routes.deleteNotificationToken> = (c) => {
  const { orm } = database(c);
  return commit(c, [queries.deleteNotificationToken(orm, principalOf(c).sub, c.req.param("device_identifier") ?? "")], { status: 204 });
};
