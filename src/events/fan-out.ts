import { eq, inArray } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { markDispatched } from "../db/events";
import { cardOrderEntries, notificationTokens } from "../db/schema";
import { endpointsOf } from "../db/webhook-endpoints";
import type { Bindings } from "../env";
import type { QueueMessage } from "./messages";
import { pushConfig } from "./push-config";
import { sendAll } from "./send-batch";
import { isSlow } from "./slow-endpoints";

type EventMessage = Extract<QueueMessage, { kind: "event" }>;

/** An endpoint subscribed to `["*"]` or to the event's type. */
const subscribed = (eventTypes: string, type: string): boolean => {
  const types = JSON.parse(eventTypes) as string[];
  return types.includes("*") || types.includes(type);
};

/** One push per device of each voucher owner with cards in the delivered order (docs/api.md part 12). */
async function pushesFor(orm: ReturnType<typeof drizzle>, event: EventMessage["event"]): Promise<QueueMessage[]> {
  // Only card_order.delivered is pushed: its data is the card order.
  const orderId = (event.data as { id: string }).id;
  const owners = orm
    .select({ owner: cardOrderEntries.voucherOwnerId })
    .from(cardOrderEntries)
    .where(eq(cardOrderEntries.orderId, orderId));
  const [entries, devices] = await orm.batch([
    orm
      .select({
        id: cardOrderEntries.id,
        owner: cardOrderEntries.voucherOwnerId,
        holder: cardOrderEntries.cardHolderName,
      })
      .from(cardOrderEntries)
      .where(eq(cardOrderEntries.orderId, orderId)),
    orm
      .select({ owner: notificationTokens.ownerId, token: notificationTokens.value })
      .from(notificationTokens)
      .where(inArray(notificationTokens.ownerId, owners)),
  ]);
  return devices.map(({ owner, token }) => {
    const own = entries.filter((entry) => entry.owner === owner);
    return {
      kind: "push",
      eventId: event.id,
      orderId,
      token,
      entryIds: own.map((entry) => entry.id),
      cardHolderNames: [...new Set(own.map((entry) => entry.holder))],
    };
  });
}

/**
 * Takes a batch of new events: marks them dispatched, and sends one delivery per subscribed webhook
 * endpoint and, for a delivered order, one push per device, each to be retried on its own. If any
 * of it fails, the batch is retried whole: a receiver may see an event twice, never lose one.
 */
export async function fanOut(env: Bindings, messages: readonly Message<EventMessage>[]): Promise<void> {
  const orm = drizzle(env.DB);
  const events = messages.map((message) => message.body);
  const customers = [...new Set(events.map((body) => body.customerId))];
  const [endpoints] = await orm.batch([
    endpointsOf(orm, customers),
    markDispatched(
      orm,
      events.map((body) => body.event.id),
      new Date().toISOString(),
    ),
  ]);

  const next: QueueMessage[] = [];
  const slow: QueueMessage[] = []; // endpoints known to be slow start on the slow lane (webhook-delivery.ts)
  for (const { customerId, event } of events) {
    for (const endpoint of endpoints) {
      if (endpoint.customerId === customerId && subscribed(endpoint.eventTypes, event.type))
        (isSlow(endpoint.id) ? slow : next).push({ kind: "delivery", endpointId: endpoint.id, event });
    }
  }
  const delivered = events.filter(({ event }) => event.type === "card_order.delivered").map(({ event }) => event);
  if (delivered.length > 0) {
    const push = pushConfig(env);
    if ("off" in push)
      console.log(
        JSON.stringify({ job: "push", status: "off", reason: push.off, event_ids: delivered.map((event) => event.id) }),
      );
    else for (const event of delivered) next.push(...(await pushesFor(orm, event)));
  }
  for (const [queue, bodies] of [
    [env.EVENTS, next],
    [env.SLOW_DELIVERIES, slow],
  ] as const)
    await sendAll(queue, bodies);
  for (const message of messages) message.ack();
}
