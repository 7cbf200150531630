import { and, eq, inArray, lt, lte, sql } from "drizzle-orm";
import { batchNamed, type Database } from "../db/client";
import { guarded } from "../db/guards";
import { invoiceDeliveries, type EventRow, type InvoiceDeliveryRow } from "../db/schema";
import type { DeliveryState } from "../domain/deliveries";
import type { EventType } from "../domain/events";
import { WriteConflict } from "../errors";
import { insertEvents } from "../events/outbox";
import { toInvoiceDelivery } from "../schemas/invoice-delivery";

// docs/api.md part 17: the jobs Worker's reads and writes of deliveries. Every change of a delivery's
// state is one batch with its event, guarded on the state (and attempt) it was read in: a message
// delivered twice, or two consumers at once, change it once.

const d = invoiceDeliveries;

export async function findDelivery(orm: Database, id: string): Promise<InvoiceDeliveryRow | undefined> {
  const [row] = await orm.select().from(d).where(eq(d.id, id));
  return row;
}

export async function deliveryByMessageId(orm: Database, messageId: string) {
  const [row] = await orm.select().from(d).where(eq(d.messageId, messageId));
  return row;
}

/**
 * Takes the next attempt of a pending delivery: counts it and leases the delivery until `leaseUntil`
 * (no other consumer attempts it before), recorded before anything is sent, so that a consumer that dies
 * mid-send leaves a delivery the next attempt finds counted. Undefined: someone else took it, or it is
 * not due.
 */
export async function claimAttempt(
  orm: Database,
  row: InvoiceDeliveryRow,
  now: string,
  dueBy: string,
  leaseUntil: string,
) {
  const [claimed] = await orm
    .update(d)
    .set({ attempts: row.attempts + 1, attemptAfter: leaseUntil, updatedAt: now })
    .where(and(eq(d.id, row.id), eq(d.state, "pending"), eq(d.attempts, row.attempts), lte(d.attemptAfter, dueBy)))
    .returning();
  return claimed;
}

/** The attempt failed with an error that passes: the next is due at `retryAt`. */
export async function scheduleRetry(orm: Database, row: InvoiceDeliveryRow, retryAt: string) {
  await orm
    .update(d)
    .set({ attemptAfter: retryAt })
    .where(and(eq(d.id, row.id), eq(d.state, "pending"), eq(d.attempts, row.attempts)));
}

const EVENT_OF: Partial<Record<DeliveryState, EventType>> = {
  sent: "invoice_delivery.sent",
  failed: "invoice_delivery.failed",
  delivered: "invoice_delivery.delivered",
  bounced: "invoice_delivery.bounced",
};

/**
 * Moves `row` (as read) to `changes.state`, with its event, in one batch; undefined when the row had
 * moved meanwhile (guard), so that nothing changes twice. Answers the stored event for the queue.
 */
export async function moveDelivery(
  orm: Database,
  row: InvoiceDeliveryRow,
  changes: Partial<InvoiceDeliveryRow> & { state: DeliveryState; updatedAt: string },
): Promise<{ row: InvoiceDeliveryRow; event: EventRow } | undefined> {
  const after = { ...row, ...changes };
  const holds = sql`${d.state} = ${row.state} AND ${d.attempts} = ${row.attempts}`;
  const events = insertEvents(
    orm,
    row.customerId,
    [{ type: EVENT_OF[changes.state]!, data: toInvoiceDelivery(after) }],
    Date.parse(changes.updatedAt),
  );
  try {
    const results = await batchNamed(orm, {
      delivery: [
        orm
          .update(d)
          .set({ ...changes, state: guarded(holds, changes.state, "delivery_unchanged") as never })
          .where(eq(d.id, row.id)),
      ],
      events: events.inserts,
    });
    return { row: after, event: (results.events[0] as EventRow[])[0]! };
  } catch (error) {
    if (error instanceof WriteConflict && error.guard === "delivery_unchanged") return undefined;
    throw error;
  }
}

/** Pending deliveries of these invoices not attempted yet: what the events of their issuing start. */
export async function newDeliveriesOf(orm: Database, invoiceIds: string[]) {
  if (invoiceIds.length === 0) return [];
  return orm
    .select({ id: d.id })
    .from(d)
    .where(and(inArray(d.invoiceId, invoiceIds.slice(0, 90)), eq(d.state, "pending"), eq(d.attempts, 0)));
}

/** Pending deliveries whose attempt was due before `before`: their message was lost (or is late). */
export async function overdueDeliveries(orm: Database, before: string, limit: number) {
  return orm
    .select({ id: d.id })
    .from(d)
    .where(and(eq(d.state, "pending"), lt(d.attemptAfter, before)))
    .orderBy(d.attemptAfter)
    .limit(limit);
}
