import type { EventRow } from "../db/schema";
import { toEvent } from "../schemas/event";
import type { QueueMessage } from "./messages";

/**
 * Hands stored events to the queue. A failure is logged and left to the Cron Trigger, which sends
 * every event the consumer has not taken within a minute (at least once; receivers dedupe on id).
 */
export async function enqueueEvents(queue: Queue<QueueMessage>, rows: EventRow[]): Promise<void> {
  if (rows.length === 0) return;
  try {
    await queue.sendBatch(rows.map((row) => ({ body: { kind: "event", customerId: row.customerId, event: toEvent(row) } })));
  } catch (error) {
    console.error(JSON.stringify({ level: "error", error: "events_not_enqueued", event_ids: rows.map((row) => row.id), cause: String(error) }));
  }
}
