import * as z from "zod/mini";
import type { NotificationDeviceRow } from "../db/notification-tokens";
import { dateTime, pathSegmentText, requestBody, requiredText } from "./formats";
import { named, namedResponse } from "./registry";

export const NotificationDevice = namedResponse(
  "NotificationDevice",
  () => z.strictObject({ device_identifier: z.string(), created_at: dateTime(), updated_at: dateTime() }),
  "A registered device; the token value itself is never returned.",
);

/** A device's token, to register (docs/api.md part 5: lengths in characters). */
export const RegisterNotificationToken = named(
  "RegisterNotificationToken",
  requestBody({ value: requiredText(4096), device_identifier: pathSegmentText(255) }),
);

type NotificationDeviceBody = z.input<typeof NotificationDevice>;

export const toNotificationDevice = (row: NotificationDeviceRow): NotificationDeviceBody => ({
  device_identifier: row.deviceIdentifier,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});
