import { drizzle } from "drizzle-orm/d1";
import { undispatchedOf } from "../db/events";
import type { EventRow } from "../db/schema";
import type { Bindings } from "../env";
import { toEvent } from "../schemas/event";
import type { QueueMessage } from "./messages";
import { sendAll } from "./send-batch";

/**
 * Hands stored events to the queue. A failure is logged and left to the Cron Trigger, which sends
 * every event the consumer has not taken within a minute (at least once; receivers dedupe on id).
 */
export async function enqueueEvents(queue: Queue<QueueMessage>, rows: EventRow[]): Promise<void> {
  if (rows.length === 0) return;
  try {
    await sendAll(
      queue,
      rows.map((row) => ({ kind: "event", customerId: row.customerId, event: toEvent(row) })),
    );
  } catch (error) {
    console.error(
      JSON.stringify({
        level: "error",
        error: "events_not_enqueued",
        event_ids: rows.map((row) => row.id),
        cause: String(error),
      }),
    );
  }
}

/**
 * A write whose batch failed may still have committed (the answer was lost on the way back): its
 * events, if stored, go to the queue now rather than at the Cron Trigger's next look, a minute or
 * two later. The read goes to the primary, where the batch ran.
 */
export async function enqueueIfStored(env: Pick<Bindings, "DB" | "EVENTS">, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  try {
    await enqueueEvents(env.EVENTS, await undispatchedOf(drizzle(env.DB), ids));
  } catch (error) {
    console.error(
      JSON.stringify({ level: "error", error: "events_not_recovered", event_ids: ids, cause: String(error) }),
    );
  }
}
