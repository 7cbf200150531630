import type { RouteDocs } from "../../http/route";
import { MAX_DEVICES_PER_OWNER } from "./notification-tokens.routes";

/** The prose of notification-tokens.routes.ts in the OpenAPI document, by operationId. */
export const notificationTokenDocs: Record<string, RouteDocs> = {
  registerNotificationToken: {
    tag: "The push-notification tokens of the calling voucher owner's devices.",
    summary: "Register (or replace) the token of one of the caller's devices",
    description:
      "One registration per (voucher owner, device_identifier): a second PUT replaces the value, " +
      "keeps created_at and advances updated_at. A value belongs to one owner's device at a time: " +
      `registering it elsewhere removes it here. An owner has at most ${MAX_DEVICES_PER_OWNER} devices: ` +
      "registering another removes the least recently updated one, in the same write.",
    success: "Registered.",
  },
  listNotificationTokens: {
    summary: "List the caller's registered devices, newest first",
    description:
      "Pages the devices registered for the token's subject (the voucher owner), newest first; " +
      "never the token values.",
    success: "A page of devices.",
  },
  deleteNotificationToken: {
    summary: "Remove a device's token",
    description: "Answers 204 also when nothing was registered for the device.",
    success: "Gone.",
  },
};
