import * as z from "zod/mini";
import type { NotificationDeviceRow } from "../db/notification-tokens";
import { dateTime } from "./formats";
import { namedResponse } from "./registry";

export const NotificationDevice = namedResponse(
  "NotificationDevice",
  () => z.strictObject({ device_identifier: z.string(), created_at: dateTime(), updated_at: dateTime() }),
  "A registered device; the token value itself is never returned.",
);

type NotificationDeviceBody = z.input<typeof NotificationDevice>;

export const toNotificationDevice = (row: NotificationDeviceRow): NotificationDeviceBody => ({
  device_identifier: row.deviceIdentifier,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});
