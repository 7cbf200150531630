import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { DunningMessage } from "../../src/jobs/dunning-messages";
import jobs from "../../src/jobs/index";
import { createInvoice, customerOfToken, orderIn, storeBillingProfile, token } from "./api";
import { deliveriesQueued } from "./deliveries";
import { queued, RecordingQueue } from "./queue";

// docs/api.md part 18: the daily dunning run as the tests drive it: the jobs Worker's cron for a chosen
// business day (05:30 UTC is that day in Berlin), then every message of the dunning queue it leads to,
// consumed here until none is left.

/** The dunning queue (DUNNING): what the run queued waits here. */
export const dunningQueued = new RecordingQueue<DunningMessage>();

/**
 * The run for `day`, to its end. `drop`: that many chunk messages are lost on the way (a run that stopped
 * halfway: their invocations died before they did anything).
 */
export async function runDunning(day: string, bindings: Partial<Cloudflare.Env> = {}, drop = 0): Promise<void> {
  const all = {
    ...env,
    EVENTS: queued.binding,
    DELIVERIES: deliveriesQueued.binding,
    DUNNING: dunningQueued.binding,
    ...bindings,
  };
  const ctx = createExecutionContext();
  await jobs.scheduled(
    createScheduledController({ scheduledTime: Date.parse(`${day}T05:30:00Z`), cron: "30 5 * * *" }),
    all,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  let dropped = 0;
  for (let bodies = dunningQueued.take(); bodies.length > 0; bodies = dunningQueued.take()) {
    const kept = bodies.filter((b) => b.kind !== "dunning_chunk" || dropped++ >= drop);
    if (kept.length > 0) await consumeDunning(kept, all);
  }
}

/** One batch of `bodies` through the jobs Worker's dunning consumer; every message must be acked. */
export async function consumeDunning(bodies: DunningMessage[], bindings: Partial<Cloudflare.Env> = {}) {
  const batch = createMessageBatch<DunningMessage>(
    "voucher-billing-dunning",
    bodies.map((body, i) => ({ id: `dunning-${i}`, timestamp: new Date(), attempts: 1, body })),
  );
  const acked: boolean[] = [];
  batch.messages.forEach((message, i) => {
    message.ack = () => void (acked[i] = true);
    message.retry = () => void (acked[i] = false);
  });
  const ctx = createExecutionContext();
  await jobs.queue(
    batch as never,
    {
      ...env,
      EVENTS: queued.binding,
      DELIVERIES: deliveriesQueued.binding,
      DUNNING: dunningQueued.binding,
      ...bindings,
    },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  expect(acked.filter(Boolean)).toHaveLength(bodies.length);
}

/** A submitted bank-transfer order of one entry of 75.05 and its invoice, for a fresh customer. */
export async function overdueInvoice({ consumer = false, language = "de" } = {}) {
  const auth = await token();
  await storeBillingProfile(auth, { leitweg_id: null, document_language: language });
  if (consumer)
    await env.DB.prepare("UPDATE billing_profiles SET consumer = 1 WHERE customer_id = ?")
      .bind(customerOfToken(auth))
      .run();
  const order = await orderIn(auth, "submitted", {
    order: { voucher_category: "meal", payment_method: "bank_transfer" },
    entries: [{ voucher_owner_id: "owner-1", card_holder_name: "Ada Lovelace", amount: "75.05" }],
  });
  const invoice = await createInvoice(auth, order.id, "PO-1");
  queued.take();
  deliveriesQueued.take();
  return { auth, invoice, due: invoice.due_on as string, gross: Math.round(Number(invoice.gross_amount) * 100) };
}

/** The invoice's reminders as stored, by level. */
export async function storedReminders(invoiceId: string) {
  const { results } = await env.DB.prepare("SELECT * FROM reminders WHERE invoice_id = ? ORDER BY level")
    .bind(invoiceId)
    .all<Record<string, unknown>>();
  return results;
}
