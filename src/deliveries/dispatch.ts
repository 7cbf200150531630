import { drizzle } from "drizzle-orm/d1";
import type { Bindings } from "../env";
import type { QueueMessage } from "../events/messages";
import { newDeliveriesOf, overdueDeliveries } from "./store";

// docs/api.md part 17, at least once: a delivery is written in its document's batch, and gets to the
// deliveries queue two ways. First, the events of that batch: when the events queue's consumer takes an
// invoice.created or invoice.cancelled event (sent after the batch, or by the per-minute cron when that
// send was lost: events/redispatch.ts), it queues the new deliveries of that invoice. Then, the jobs
// Worker's per-minute cron: every delivery still pending a minute after its attempt was due is queued
// again (the consumer's claim makes a duplicate message change nothing).

const STARTED_BY: ReadonlySet<string> = new Set(["invoice.created", "invoice.cancelled"]);
/** A pending delivery whose attempt was due this long ago lost its message (or it is late). */
const GRACE_MS = 60_000;
const PER_RUN = 100;

/** For the events queue's consumer: queues the new deliveries of the invoices these events issued or cancelled. */
export async function startDeliveries(env: Bindings, messages: readonly Message<QueueMessage>[]): Promise<void> {
  const invoiceIds = [
    ...new Set(
      messages.flatMap(({ body }) =>
        body.kind === "event" && STARTED_BY.has(body.event.type) ? [(body.event.data as { id: string }).id] : [],
      ),
    ),
  ];
  if (invoiceIds.length === 0) return;
  try {
    const rows = await newDeliveriesOf(drizzle(env.DB), invoiceIds);
    if (rows.length > 0) await env.DELIVERIES.sendBatch(rows.map(({ id }) => ({ body: { deliveryId: id } })));
  } catch (error) {
    // The cron finds them a minute later.
    console.error(
      JSON.stringify({ level: "error", error: "deliveries_not_queued", invoice_ids: invoiceIds, cause: String(error) }),
    );
  }
}

/** For the per-minute cron: queues again every pending delivery whose attempt is overdue. */
export async function redispatchDeliveries(env: Bindings, now = Date.now()): Promise<number> {
  const rows = await overdueDeliveries(drizzle(env.DB), new Date(now - GRACE_MS).toISOString(), PER_RUN);
  if (rows.length > 0) await env.DELIVERIES.sendBatch(rows.map(({ id }) => ({ body: { deliveryId: id } })));
  return rows.length;
}
