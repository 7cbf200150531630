import { RequestDatabase } from "../db/client";
import { findInvoiceAndLines, whyNoDocument } from "../db/e-invoices";
import type { InvoiceDeliveryRow } from "../db/schema";
import { businessTimeZone, directDebitLeadDays } from "../domain/billing";
import { dayIn } from "../domain/time";
import type { Bindings } from "../env";
import { enqueueEvents } from "../events/enqueue";
import { reminderDocumentKey, reminderRead } from "../db/reminders";
import { compose, composeReminder } from "./compose";
import { documentBytes } from "./document";
import { classify } from "./errors";
import type { DeliveryMessage } from "./messages";
import { claimAttempt, findDelivery, moveDelivery, scheduleRetry } from "./store";

// docs/api.md part 17: the deliveries queue's consumer (the jobs Worker). One message, one attempt:
// the attempt is counted and the delivery leased before the binding is called, and its outcome
// recorded after, with its event. A consumer that dies between sending and recording leaves the
// delivery pending and leased; once the lease ends, one more attempt sends it again (at most once more).

/** Attempts in all before a passing error fails the delivery. */
const DELIVERY_ATTEMPTS = 5;
/** How long an attempt holds its delivery: a message that comes meanwhile leaves it alone. */
const LEASE_MS = 120_000;
/** A retry's message may come a little before its time (the queue's delays are whole seconds). */
const EARLY_MS = 1_000;
const DEFAULT_RETRY_BASE_S = 30;

/** The wait after failed attempt `attempt` (1, 2, ...): 30 s, 2 min, 8 min, 32 min (DELIVERY_RETRY_BASE_SECONDS). */
function deliveryRetrySeconds(attempt: number, env: Pick<Bindings, "DELIVERY_RETRY_BASE_SECONDS">): number {
  const configured = Number(env.DELIVERY_RETRY_BASE_SECONDS);
  const base =
    env.DELIVERY_RETRY_BASE_SECONDS !== undefined && Number.isInteger(configured) && configured >= 0
      ? configured
      : DEFAULT_RETRY_BASE_S;
  return Math.min(base * 4 ** (attempt - 1), 12 * 3600);
}

const log = (fields: Record<string, unknown>) => console.log(JSON.stringify({ job: "invoice_delivery", ...fields }));

type Outcome = { ack: true } | { retryInSeconds: number };

/** One attempt of the delivery a message names. */
async function attemptDelivery(env: Bindings, deliveryId: string, now = Date.now()): Promise<Outcome> {
  const db = new RequestDatabase(env.DB, "first-primary");
  const found = await findDelivery(db.orm, deliveryId);
  // Sent, failed, skipped, ... or unknown: a message twice, or late, changes nothing.
  if (found?.state !== "pending") return { ack: true };
  const at = new Date(now).toISOString();
  const due = Date.parse(found.attemptAfter);
  if (due > now + EARLY_MS) return { retryInSeconds: Math.ceil((due - now) / 1000) };

  // An attempt that stopped without an answer, and was the last: failed, with nothing sent again.
  if (found.attempts >= DELIVERY_ATTEMPTS) {
    await finish(env, db, found, {
      state: "failed",
      error: "The last attempt stopped without an answer.",
      updatedAt: at,
    });
    return { ack: true };
  }
  const delivery = await claimAttempt(
    db.orm,
    found,
    at,
    new Date(now + EARLY_MS).toISOString(),
    new Date(now + LEASE_MS).toISOString(),
  );
  if (!delivery) return { ack: true };

  let sent: { messageId: string };
  try {
    const message = await messageOf(env, db, delivery, now);
    sent = await env.EMAIL.send(message);
  } catch (error) {
    const { passing, reason } = classify(error);
    log({ level: "warn", delivery_id: delivery.id, attempt: delivery.attempts, passing, error: reason });
    if (!passing || delivery.attempts >= DELIVERY_ATTEMPTS) {
      await finish(env, db, delivery, { state: "failed", error: reason, updatedAt: at });
      return { ack: true };
    }
    const wait = deliveryRetrySeconds(delivery.attempts, env);
    await scheduleRetry(db.orm, delivery, new Date(now + wait * 1000).toISOString());
    return { retryInSeconds: wait };
  }
  await finish(env, db, delivery, { state: "sent", messageId: sent.messageId, sentAt: at, updatedAt: at });
  log({ delivery_id: delivery.id, attempt: delivery.attempts, message_id: sent.messageId });
  return { ack: true };
}

async function finish(
  env: Bindings,
  db: RequestDatabase,
  delivery: InvoiceDeliveryRow,
  changes: Parameters<typeof moveDelivery>[2],
) {
  const moved = await moveDelivery(db.orm, delivery, changes);
  if (moved) await enqueueEvents(env.EVENTS, [moved.event]);
}

/** Thrown when the document cannot be sent: it fails the attempt (passing: retried, then failed). */
class NoDocument extends Error {
  readonly code = "E_DOCUMENT_UNAVAILABLE";
}

/** The message of `delivery`: the binding's structured form, the document its one attachment. */
async function messageOf(env: Bindings, db: RequestDatabase, delivery: InvoiceDeliveryRow, now: number) {
  const { invoice, lines } = await findInvoiceAndLines(db, delivery.customerId, delivery.invoiceId);
  if (!invoice) throw new NoDocument("The invoice is gone.");
  const missing = whyNoDocument(invoice);
  if (missing) throw new NoDocument(`Invoice ${invoice.number} has no e-invoice: ${missing}.`);
  if (delivery.document === "credit_note" && invoice.state !== "cancelled")
    throw new NoDocument("The invoice is not cancelled: it has no credit note.");
  const sender = {
    from: env.DELIVERY_FROM ?? "",
    name: env.CREDITOR_NAME,
    replyTo: env.CREDITOR_CONTACT_EMAIL ?? "",
    today: dayIn(new Date(now), businessTimeZone(env)),
    leadDays: directDebitLeadDays(env),
  };
  let content: Uint8Array;
  let composed: ReturnType<typeof compose>;
  if (delivery.document === "reminder") {
    // docs/api.md part 18: the reminder's PDF as kept when the run made it.
    const { reminder } = await db.load({ reminder: reminderRead(delivery.reminderId ?? "") });
    const stored = reminder ? await env.DOCUMENTS.get(reminderDocumentKey(reminder.id)) : null;
    if (!reminder || !stored) throw new NoDocument("The reminder's document is not kept.");
    content = new Uint8Array(await stored.arrayBuffer());
    composed = composeReminder(invoice, reminder, sender);
  } else {
    content = await documentBytes(env, invoice, async () => lines, delivery.document, delivery.format);
    composed = compose(invoice, delivery, sender);
  }
  return {
    from: { email: env.DELIVERY_FROM ?? "", name: env.CREDITOR_NAME },
    to: delivery.recipient,
    ...(env.CREDITOR_CONTACT_EMAIL ? { replyTo: env.CREDITOR_CONTACT_EMAIL } : {}),
    subject: composed.subject,
    text: composed.text,
    attachments: [
      { filename: composed.filename, type: composed.contentType, content, disposition: "attachment" as const },
    ],
    headers: { "X-Invoice-Number": invoice.number, "X-Delivery-Id": delivery.id },
  };
}

/** The deliveries queue's consumer: each message on its own, so that one slow send holds up no other. */
export async function consumeDeliveries(batch: MessageBatch<DeliveryMessage>, env: Bindings): Promise<void> {
  if (batch.queue.endsWith("-dlq")) {
    // Its delivery stays pending: the per-minute cron sends it again once its attempt is overdue.
    for (const message of batch.messages) {
      console.error(
        JSON.stringify({ level: "error", job: "delivery_dead_letter", delivery_id: message.body.deliveryId }),
      );
      message.ack();
    }
    return;
  }
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        const outcome = await attemptDelivery(env, message.body.deliveryId);
        if ("ack" in outcome) message.ack();
        else message.retry({ delaySeconds: outcome.retryInSeconds });
      } catch (error) {
        log({ level: "error", delivery_id: message.body.deliveryId, error: String(error) });
        message.retry({ delaySeconds: 10 });
      }
    }),
  );
}
