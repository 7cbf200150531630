import { index, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import * as z from "zod/mini";
import { dateTime, pathSegmentText, requestBody, requiredText } from "./formats";
import { namedRequest } from "./registry";
import { resource } from "./resource";

// A voucher owner's device and its push token (docs/api.md part 5): the table, the device as the
// wire lists it (never the token value), and the body that registers one.

export const notificationTokens = sqliteTable(
  "notification_tokens",
  {
    ownerId: text("owner_id").notNull(),
    deviceIdentifier: text("device_identifier").notNull(),
    value: text("value").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.ownerId, t.deviceIdentifier] }),
    // A token value belongs to one device of one owner at a time.
    uniqueIndex("notification_tokens_value").on(t.value),
    index("notification_tokens_owner_created").on(t.ownerId, t.createdAt, t.deviceIdentifier),
    // The owner's least recently updated device, which a registration beyond the limit replaces.
    index("notification_tokens_owner_updated").on(t.ownerId, t.updatedAt, t.deviceIdentifier),
  ],
);

export type NotificationTokenRow = typeof notificationTokens.$inferSelect;

const device = resource<Pick<NotificationTokenRow, "deviceIdentifier" | "createdAt" | "updatedAt">>()(
  "NotificationDevice",
  (f) => ({
    device_identifier: f.column(z.string),
    created_at: f.column(dateTime),
    updated_at: f.column(dateTime),
  }),
  "A registered device; the token value itself is never returned.",
);

export const NotificationDevice = device.schema;
export const toNotificationDevice = device.show;

/** A device's token, to register (docs/api.md part 5: lengths in characters). */
export const RegisterNotificationToken = namedRequest("RegisterNotificationToken", () =>
  requestBody({ value: requiredText(4096), device_identifier: pathSegmentText(255) }),
);
