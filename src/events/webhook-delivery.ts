import { drizzle } from "drizzle-orm/d1";
import { open } from "../crypto/secret-box";
import { endpointForDelivery } from "../db/webhook-endpoints";
import type { Bindings } from "../env";
import type { QueueMessage } from "./messages";
import { logAttempt, logDeadLetter, MAX_ATTEMPTS, retryDelaySeconds } from "./retry";
import { isSlow, markSlow } from "./slow-endpoints";
import { signWebhook } from "./webhook-signature";
import { isPublicWebhookHost } from "../domain/webhook-host";

type DeliveryMessage = Extract<QueueMessage, { kind: "delivery" }>;

// docs/api.md part 11: a 2xx within 10 s is delivered; anything else (a redirect included: it is not
// followed, so that no endpoint can point a delivery elsewhere) is retried.
export const DELIVERY_TIMEOUT_MS = 10_000;

// Tenant isolation. The events queue hands its consumer one batch at a time, and a batch is done when
// its slowest delivery is: one customer's endpoint that takes its 10 s would hold up every other
// customer's deliveries in that batch and behind it. So on the events queue (the fast lane) an
// attempt gets FAST_LANE_TIMEOUT_MS. An endpoint that has not answered by then is remembered as slow
// (slow-endpoints.ts) and the delivery is handed, unanswered and not counted as a failed attempt, to
// the slow lane: a queue of its own whose attempts get the full 10 s, and where that endpoint's next
// deliveries go at once. A receiver may so see an event twice, which at-least-once allows.
export const FAST_LANE_TIMEOUT_MS = 2_500;

type Lane = "fast" | "slow";

async function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<number | "timeout" | "network_error"> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    return response.status;
  } catch (error) {
    return error instanceof Error && error.name === "TimeoutError" ? "timeout" : "network_error";
  }
}

/**
 * POSTs one event to one endpoint, signed per Standard Webhooks; acks it, schedules its retry, or
 * (fast lane) hands it to the slow lane.
 */
export async function deliver(env: Bindings, message: Message<DeliveryMessage>, lane: Lane): Promise<void> {
  const { endpointId, event } = message.body;
  // The slow lane's queue counts from 1 again: the attempts that failed before it still count.
  const attempt = (message.body.priorAttempts ?? 0) + message.attempts;
  const started = Date.now();
  const log = (status: unknown) =>
    logAttempt({
      job: "webhook_delivery",
      event_id: event.id,
      endpoint_id: endpointId,
      attempt,
      lane,
      status,
      duration_ms: Date.now() - started,
    });
  const toSlowLane = async (status: string) => {
    await env.SLOW_DELIVERIES.send({ ...message.body, priorAttempts: attempt - 1 });
    log(status);
    message.ack();
  };
  if (lane === "fast" && isSlow(endpointId)) return toSlowLane("to_slow_lane");
  const endpoint = await endpointForDelivery(drizzle(env.DB), endpointId);
  if (!endpoint) {
    // Deleted: no further attempt, also not the retries of earlier events (docs/api.md part 12).
    log("endpoint_deleted");
    return message.ack();
  }
  if (env.ALLOW_LOCAL_WEBHOOKS !== "true" && !isPublicWebhookHost(new URL(endpoint.url).hostname)) {
    // Saved while local webhooks were allowed, or before webhook-host.ts refused its form: never sent.
    log("host_refused");
    return message.ack();
  }
  const secret = await open(env, "webhook-secrets", endpointId, endpoint.encryptedSecret);
  const body = JSON.stringify(event);
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    "Content-Type": "application/json",
    "webhook-id": event.id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await signWebhook(secret, event.id, timestamp, body),
  };
  const status = await post(endpoint.url, headers, body, lane === "fast" ? FAST_LANE_TIMEOUT_MS : DELIVERY_TIMEOUT_MS);
  if (status === "timeout" && lane === "fast") {
    markSlow(endpointId);
    return toSlowLane("timeout_to_slow_lane");
  }
  log(status);
  if (typeof status === "number" && status >= 200 && status < 300) message.ack();
  else if (message.body.priorAttempts && attempt >= MAX_ATTEMPTS) {
    // The queue dead-letters after its own attempts; one carried over from the events queue ends here.
    logDeadLetter({ kind: "delivery", event_id: event.id, endpoint_id: endpointId, attempts: attempt });
    message.ack();
  } else message.retry({ delaySeconds: retryDelaySeconds(attempt, env) });
}
