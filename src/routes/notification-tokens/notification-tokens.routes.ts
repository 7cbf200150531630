import * as z from "zod/mini";
import { dateTime, listOf, named } from "../../http/openapi";
import type { RouteSpec } from "../../http/route";
import { pathSegmentText, requestBody, requiredText } from "../../http/validation";
import { PAGE_PARAMETERS } from "../../pagination";

const TAG = "Notification tokens";
const ACCESS = { scope: "notification_tokens:write", tenant: false } as const;

// CONTRACT part 5: lengths in characters.
export const TOKEN_VALUE_MAX = 4096;
export const DEVICE_IDENTIFIER_MAX = 255;

export const RegisterNotificationToken = named(
  "RegisterNotificationToken",
  requestBody({ value: requiredText(TOKEN_VALUE_MAX), device_identifier: pathSegmentText(DEVICE_IDENTIFIER_MAX) }),
);

export const NotificationDevice = named(
  "NotificationDevice",
  z.object({ device_identifier: z.string(), created_at: dateTime(), updated_at: dateTime() }),
  "A registered device; the token value itself is never returned.",
);

export const NotificationDeviceList = listOf("NotificationDeviceList", NotificationDevice);

export const registerNotificationToken = {
  method: "put",
  path: "/voucher_owners/me/notification_tokens",
  operationId: "registerNotificationToken",
  summary: "Register (or replace) the token of one of the caller's devices",
  description:
    "One registration per (voucher owner, device_identifier): a second PUT replaces the value, keeps created_at and advances updated_at. A value belongs to one owner's device at a time: registering it elsewhere removes it here.",
  tag: TAG,
  access: ACCESS,
  body: RegisterNotificationToken,
  success: { status: 204, description: "Registered." },
} satisfies RouteSpec;

export const listNotificationTokens = {
  method: "get",
  path: "/voucher_owners/me/notification_tokens",
  operationId: "listNotificationTokens",
  summary: "List the caller's registered devices, newest first",
  tag: TAG,
  access: ACCESS,
  query: PAGE_PARAMETERS,
  success: { status: 200, description: "A page of devices.", schema: NotificationDeviceList },
} satisfies RouteSpec;

export const deleteNotificationToken = {
  method: "delete",
  path: "/voucher_owners/me/notification_tokens/{device_identifier}",
  operationId: "deleteNotificationToken",
  summary: "Remove a device's token",
  description: "Answers 204 also when nothing was registered for the device.",
  tag: TAG,
  access: ACCESS,
  success: { status: 204, description: "Gone." },
} satisfies RouteSpec;
