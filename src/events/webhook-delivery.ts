import { drizzle } from "drizzle-orm/d1";
import { open } from "../crypto/secret-box";
import { endpointForDelivery } from "../db/webhook-endpoints";
import type { Bindings } from "../env";
import type { QueueMessage } from "./messages";
import { logAttempt, retryDelaySeconds } from "./retry";
import { signWebhook } from "./webhook-signature";

type DeliveryMessage = Extract<QueueMessage, { kind: "delivery" }>;

// CONTRACT part 11: a 2xx within 10 s is delivered; anything else (a redirect included: it is not
// followed, so that no endpoint can point a delivery elsewhere) is retried.
export const DELIVERY_TIMEOUT_MS = 10_000;

async function post(url: string, headers: Record<string, string>, body: string): Promise<number | "timeout" | "network_error"> {
  try {
    const response = await fetch(url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS) });
    await response.body?.cancel();
    return response.status;
  } catch (error) {
    return error instanceof Error && error.name === "TimeoutError" ? "timeout" : "network_error";
  }
}

/** POSTs one event to one endpoint, signed per Standard Webhooks; acks it or schedules its retry. */
export async function deliver(env: Bindings, message: Message<DeliveryMessage>): Promise<void> {
  const { endpointId, event } = message.body;
  const started = Date.now();
  const log = (status: unknown) => logAttempt({ job: "webhook_delivery", event_id: event.id, endpoint_id: endpointId, attempt: message.attempts, status, duration_ms: Date.now() - started });
  const endpoint = await endpointForDelivery(drizzle(env.DB), endpointId);
  if (!endpoint) {
    // Deleted: no further attempt, also not the retries of earlier events (CONTRACT part 12).
    log("endpoint_deleted");
    return message.ack();
  }
  const secret = await open(env, "webhook-secrets", endpointId, endpoint.encryptedSecret);
  const body = JSON.stringify(event);
  const timestamp = Math.floor(Date.now() / 1000);
  const status = await post(
    endpoint.url,
    {
      "Content-Type": "application/json",
      "webhook-id": event.id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": await signWebhook(secret, event.id, timestamp, body),
    },
    body,
  );
  log(status);
  if (typeof status === "number" && status >= 200 && status < 300) message.ack();
  else message.retry({ delaySeconds: retryDelaySeconds(message.attempts, env) });
}
