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
  docs: {
    tag: "The push-notification tokens of the calling voucher owner's devices.",
    summary: "Register (or replace) the token of one of the caller's devices",
    description:
      "One registration per (voucher owner, device_identifier): a second PUT replaces the value, " +
      "keeps created_at and advances updated_at. A value belongs to one owner's device at a time: " +
      `registering it elsewhere removes it here. An owner has at most ${MAX_DEVICES_PER_OWNER} devices: ` +
      "registering another removes the least recently updated one, in the same write.",
    success: "Registered.",
  },
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
  docs: {
    summary: "List the caller's registered devices, newest first",
    description:
      "Pages the devices registered for the token's subject (the voucher owner), newest first; " +
      "never the token values.",
    success: "A page of devices.",
  },
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
  docs: {
    summary: "Remove a device's token",
    description: "Answers 204 also when nothing was registered for the device.",
    success: "Gone.",
  },
} satisfies RouteSpec;
