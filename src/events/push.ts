import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { notificationTokens } from "../db/schema";
import type { Bindings } from "../env";
import { accessToken, forgetAccessToken } from "./google-access-token";
import type { QueueMessage } from "./messages";
import { pushConfig } from "./push-config";
import { logAttempt, retryDelaySeconds } from "./retry";

type PushMessage = Extract<QueueMessage, { kind: "push" }>;

/** What the owner's phone shows: their own card holders' names, and no one else's (docs/api.md part 12). */
function notification(names: string[]): { title: string; body: string } {
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  return {
    title: "Your voucher card is on its way",
    body:
      `The ${names.length === 1 ? "card" : "cards"} for ${list} ` +
      `${names.length === 1 ? "has" : "have"} been delivered.`,
  };
}

/** FCM's answer for a token that no longer names an app install. */
async function unregistered(response: Response): Promise<boolean> {
  if (response.status !== 404) return false;
  const body = (await response.json().catch(() => undefined)) as
    | { error?: { details?: { errorCode?: string }[] } }
    | undefined;
  return body?.error?.details?.some((detail) => detail.errorCode === "UNREGISTERED") ?? false;
}

/** Sends one push to one device; deletes a token FCM no longer knows; retries what may pass later. */
export async function push(env: Bindings, message: Message<PushMessage>): Promise<void> {
  const { eventId, orderId, token, entryIds, cardHolderNames } = message.body;
  const started = Date.now();
  const log = (status: unknown) =>
    logAttempt({
      job: "push",
      event_id: eventId,
      attempt: message.attempts,
      status,
      duration_ms: Date.now() - started,
    });
  const config = pushConfig(env);
  if ("off" in config) {
    log("off");
    return message.ack();
  }
  let response: Response;
  try {
    response = await fetch(`${config.apiUrl}/v1/projects/${encodeURIComponent(config.projectId)}/messages:send`, {
      method: "POST",
      headers: { Authorization: `Bearer ${await accessToken(config)}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        message: {
          token,
          notification: notification(cardHolderNames),
          data: { type: "card_order.delivered", card_order_id: orderId, entry_ids: entryIds.join(",") },
          // An event makes one push per device, sent again when retried or fanned out twice: keyed
          // by the event (a UUID, within APNs' 64 bytes), a repeat replaces the notification. On
          // Android the collapse key only merges messages FCM still holds; the tag replaces one shown.
          android: { collapse_key: eventId, notification: { tag: eventId } },
          apns: { headers: { "apns-collapse-id": eventId } },
        },
      }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    log(String(error));
    return message.retry({ delaySeconds: retryDelaySeconds(message.attempts, env) });
  }
  log(response.status);
  if (response.ok) return message.ack();
  if (await unregistered(response)) {
    await drizzle(env.DB).delete(notificationTokens).where(eq(notificationTokens.value, token));
    return message.ack();
  }
  if (response.status === 401) forgetAccessToken();
  // Throttled, refused credentials or a server error may pass later; any other refusal will not.
  if (response.status === 401 || response.status === 429 || response.status >= 500)
    return message.retry({ delaySeconds: retryDelaySeconds(message.attempts, env) });
  message.ack();
}
