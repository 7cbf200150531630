import { RequestDatabase } from "../db/client";
import type { InvoiceDeliveryRow } from "../db/schema";
import type { DeliveryState } from "../domain/deliveries";
import type { Bindings } from "../env";
import { enqueueEvents } from "../events/enqueue";
import type { EmailSendingEvent } from "./messages";
import { deliveryByMessageId, moveDelivery } from "./store";

// docs/api.md part 17: what Email Service reports after sending (its `email.sending` events, through the
// delivery-events queue), applied to the delivery of its messageId. Only a `sent` delivery moves, and
// only once: delivered and bounced are terminal, so an event twice, or one that comes after a later one
// (a `deferred` after `delivered`), changes nothing.

/**
 * The state an event moves a sent delivery to, or undefined: it changes nothing (deferred, complained,
 * a soft bounce still retried).
 */
function stateOf(event: EmailSendingEvent): DeliveryState | undefined {
  const name = event.type.split(".").pop();
  const payload = event.payload ?? {};
  switch (name) {
    case "delivered":
      return "delivered";
    case "bounced":
      // A hard bounce, or a soft one the service has given up on (terminal), never reaches the buyer.
      return payload.bounce?.type === "soft" && payload.terminal === false ? undefined : "bounced";
    case "rejected":
      return "bounced";
    case "failed":
      return payload.terminal === false ? undefined : "bounced";
    default:
      // deferred: the service retries; complained: it was delivered, and a complaint is the buyer's.
      return undefined;
  }
}

/** Looks at an event of an unknown messageId this often in all. */
const UNKNOWN_ATTEMPTS = 3;

const log = (fields: Record<string, unknown>) => console.log(JSON.stringify({ job: "delivery_event", ...fields }));

/** Applies one event; what it changed (for the tests), or why not. */
async function applyEmailEvent(env: Bindings, event: EmailSendingEvent): Promise<string> {
  const messageId = event.payload?.messageId;
  if (typeof messageId !== "string" || typeof event.type !== "string") {
    log({ level: "warn", outcome: "malformed", type: String(event?.type) });
    return "malformed";
  }
  const db = new RequestDatabase(env.DB, "first-primary");
  const delivery: InvoiceDeliveryRow | undefined = await deliveryByMessageId(db.orm, messageId);
  if (!delivery) {
    log({ level: "warn", outcome: "unknown_message", message_id: messageId, type: event.type });
    return "unknown";
  }
  const next = stateOf(event);
  if (!next || delivery.state !== "sent") return "unchanged";
  const moved = await moveDelivery(db.orm, delivery, { state: next, updatedAt: laterOf(delivery.updatedAt) });
  if (!moved) return "unchanged";
  await enqueueEvents(env.EVENTS, [moved.event]);
  return next;
}

/** Now, or a millisecond after `previous` when the clock has not passed it. */
const laterOf = (previous: string) => new Date(Math.max(Date.now(), Date.parse(previous) + 1)).toISOString();

/** The delivery-events queue's consumer; its dead-letter queue's logs what failed every attempt. */
export async function consumeEmailEvents(batch: MessageBatch<EmailSendingEvent>, env: Bindings): Promise<void> {
  for (const message of batch.messages) {
    if (batch.queue.endsWith("-dlq")) {
      console.error(JSON.stringify({ level: "error", job: "delivery_event_dead_letter", body: message.body }));
      message.ack();
      continue;
    }
    try {
      const outcome = await applyEmailEvent(env, message.body);
      // The send of an unknown messageId may not be recorded yet (its batch failed and is retried): the
      // event is looked at twice more, a minute apart, before it is dropped.
      if (outcome === "unknown" && message.attempts < UNKNOWN_ATTEMPTS) message.retry({ delaySeconds: 60 });
      else message.ack();
    } catch (error) {
      log({ level: "error", error: String(error) });
      message.retry({ delaySeconds: 10 });
    }
  }
}
