import type { Bindings } from "../env";
import { fanOut } from "./fan-out";
import type { QueueMessage } from "./messages";
import { push } from "./push";
import { logDeadLetter, ownFailureRetryDelaySeconds } from "./retry";
import { deliver } from "./webhook-delivery";

type Kind<K extends QueueMessage["kind"]> = Message<Extract<QueueMessage, { kind: K }>>;
const isKind =
  <K extends QueueMessage["kind"]>(kind: K) =>
  (message: Message<QueueMessage>): message is Kind<K> =>
    message.body.kind === kind;

/**
 * The queue consumer of the jobs Worker (wrangler.jobs.toml). The dead-letter queue's name ends in
 * `-dlq`: what reaches it failed every attempt and is logged, one line each, for an operator to look
 * at. The slow lane's ends in `-slow`: deliveries to endpoints that did not answer within the fast
 * lane's time (webhook-delivery.ts), tried there with the full 10 s.
 */
export async function consume(batch: MessageBatch<QueueMessage>, env: Bindings): Promise<void> {
  if (batch.queue.endsWith("-dlq")) {
    for (const message of batch.messages) {
      const { kind } = message.body;
      const eventId = kind === "push" ? message.body.eventId : message.body.event.id;
      logDeadLetter({
        kind,
        event_id: eventId,
        endpoint_id: kind === "delivery" ? message.body.endpointId : undefined,
        attempts: message.attempts,
      });
      message.ack();
    }
    return;
  }
  const lane = batch.queue.endsWith("-slow") ? "slow" : "fast";
  const events = batch.messages.filter(isKind("event"));
  await Promise.all([
    events.length > 0 ? fanOut(env, events).catch((error) => retryAll(events, error)) : undefined,
    // Each on its own: a slow or failing receiver holds up no other.
    ...batch.messages
      .filter(isKind("delivery"))
      .map((message) => deliver(env, message, lane).catch((error) => retryAll([message], error))),
    ...batch.messages
      .filter(isKind("push"))
      .map((message) => push(env, message).catch((error) => retryAll([message], error))),
  ]);
}

function retryAll(messages: readonly Message<QueueMessage>[], error: unknown): void {
  console.error(JSON.stringify({ level: "error", job: "queue", error: String(error), messages: messages.length }));
  for (const message of messages) message.retry({ delaySeconds: ownFailureRetryDelaySeconds(message.attempts) });
}
