import * as z from "zod/mini";
import { NO_BODY } from "../../http/request-body";
import { NO_QUERY } from "../../http/request-query";
import { NO_CONTENT, type RouteSpec } from "../../http/route";
import { listQuery } from "../../pagination/query";
import { listOf } from "../../schemas/envelopes";
import { NotificationDevice, RegisterNotificationToken } from "../../schemas/notification-device";

const TAG = "Notification tokens";
const ACCESS = { scope: "notification_tokens:write", tenant: false } as const;

/** A voucher owner's devices: a new one beyond these replaces the least recently updated (docs/api.md part 5). */
export const MAX_DEVICES_PER_OWNER = 20;

const NotificationDeviceList = listOf("NotificationDeviceList", NotificationDevice);

export const registerNotificationToken = {
  method: "put",
  path: "/voucher_owners/me/notification_tokens",
  operationId: "registerNotificationToken",
  tag: TAG,
  access: ACCESS,
  body: RegisterNotificationToken,
  query: NO_QUERY,
  success: { status: 204, schema: NO_CONTENT },
} satisfies RouteSpec;

export const listNotificationTokens = {
  method: "get",
  path: "/voucher_owners/me/notification_tokens",
  operationId: "listNotificationTokens",
  tag: TAG,
  access: ACCESS,
  body: NO_BODY,
  query: listQuery({}),
  success: { status: 200, schema: NotificationDeviceList },
} satisfies RouteSpec;

export const deleteNotificationToken = {
  method: "delete",
  path: "/voucher_owners/me/notification_tokens/{device_identifier}",
  operationId: "deleteNotificationToken",
  tag: TAG,
  access: ACCESS,
  body: NO_BODY,
  query: NO_QUERY,
  params: z.object({ device_identifier: z.string() }),
  success: { status: 204, schema: NO_CONTENT },
} satisfies RouteSpec;
