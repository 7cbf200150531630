import { createExecutionContext, createMessageBatch, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { DeliveryMessage, EmailSendingEvent } from "../../src/deliveries/messages";
import jobs from "../../src/jobs/index";
import { customerOfToken } from "./api";
import { queued, RecordingQueue, type Outcome } from "./queue";

// docs/api.md part 17: the deliveries queue and the EMAIL binding as the tests hold them, and the jobs
// Worker's consumers run over what was queued.

/** The deliveries queue (DELIVERIES): what the Worker queued waits here. */
export const deliveriesQueued = new RecordingQueue<DeliveryMessage>();

type Sent = Parameters<SendEmail["send"]>[0] & EmailMessageBuilder;

/**
 * Stands in for the send_email binding: records each message, answers a messageId, or throws the next
 * of `failures` (an Error with the code Email Service gives, as the binding does).
 */
export class RecordingEmail {
  readonly sent: Sent[] = [];
  readonly failures: unknown[] = [];
  private count = 0;

  failWith(...codes: string[]): this {
    for (const code of codes) this.failures.push(Object.assign(new Error(`Email Service: ${code}`), { code }));
    return this;
  }

  async send(message: Sent): Promise<EmailSendResult> {
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
    this.sent.push(message);
    return { messageId: `<msg-${++this.count}-${crypto.randomUUID()}@voucher-cards.example>` };
  }

  get binding(): SendEmail {
    return this as unknown as SendEmail;
  }
}

/**
 * Runs the deliveries consumer over what was queued, one round: a retry is recorded, not re-run (the
 * test decides). Each message is attempt 1 unless `attempts` says otherwise.
 */
export async function drainDeliveries(
  bindings: Partial<Cloudflare.Env>,
  from = deliveriesQueued,
): Promise<Outcome<DeliveryMessage>[]> {
  const bodies = from.take();
  if (bodies.length === 0) return [];
  const batch = createMessageBatch<DeliveryMessage>(
    "voucher-billing-invoice-deliveries",
    bodies.map((body, i) => ({ id: `d-${i}`, timestamp: new Date(), attempts: 1, body })),
  );
  const outcomes = batch.messages.map((message) => {
    const outcome: Outcome<DeliveryMessage> = { queue: batch.queue, body: message.body, acked: false };
    message.ack = () => void (outcome.acked = true);
    message.retry = (options?: QueueRetryOptions) => void (outcome.retried = { ...options });
    return outcome;
  });
  const ctx = createExecutionContext();
  await jobs.queue(
    batch as never,
    { ...env, EVENTS: queued.binding, DELIVERIES: deliveriesQueued.binding, ...bindings },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return outcomes;
}

/** Feeds Email Service's delivery events to the delivery-events consumer, as one batch (`attempts` each). */
export async function feedEmailEvents(
  events: EmailSendingEvent[],
  attempts = 1,
  bindings: Partial<Cloudflare.Env> = {},
) {
  const batch = createMessageBatch<EmailSendingEvent>(
    "voucher-billing-email-events",
    events.map((body, i) => ({ id: `e-${i}`, timestamp: new Date(), attempts, body })),
  );
  const outcomes = batch.messages.map((message) => {
    const outcome: Outcome<EmailSendingEvent> = { queue: batch.queue, body: message.body, acked: false };
    message.ack = () => void (outcome.acked = true);
    message.retry = (options?: QueueRetryOptions) => void (outcome.retried = { ...options });
    return outcome;
  });
  const ctx = createExecutionContext();
  await jobs.queue(batch as never, { ...env, EVENTS: queued.binding, ...bindings }, ctx);
  await waitOnExecutionContext(ctx);
  return outcomes;
}

/** An `email.sending` event as Email Service's Queue subscription delivers it. */
export const emailEvent = (event: string, messageId: string, payload: object = {}): EmailSendingEvent => ({
  type: `cf.email.sending.message.${event}`,
  source: { type: "email.sending", domain: "voucher-cards.example" },
  payload: { eventId: crypto.randomUUID(), messageId, ...payload },
});

/** Sets the delivery fields of `auth`'s customer's stored billing profile (docs/api.md part 17). */
export async function setDelivery(auth: string, format: string | null, delivery: "email" | "none" = "email") {
  await env.DB.prepare("UPDATE billing_profiles SET invoice_format = ?, invoice_delivery = ? WHERE customer_id = ?")
    .bind(format, delivery, customerOfToken(auth))
    .run();
}

/** The stored delivery rows of an invoice, oldest first, as D1 holds them. */
export async function storedDeliveries(invoiceId: string): Promise<Record<string, unknown>[]> {
  const { results } = await env.DB.prepare(
    "SELECT * FROM invoice_deliveries WHERE invoice_id = ? ORDER BY created_at, id",
  )
    .bind(invoiceId)
    .all();
  return results;
}
