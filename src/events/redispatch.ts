import { drizzle } from "drizzle-orm/d1";
import { undispatchedEvents } from "../db/events";
import type { Bindings } from "../env";
import { enqueueEvents } from "./enqueue";

/** An event the consumer has not taken this long after its change was lost on the way (or is late). */
const GRACE_MS = 60_000;
const PER_RUN = 100;

/**
 * For the Cron Trigger: sends again every event still undispatched a minute after its change, so that
 * a crash between the change's batch and the send loses nothing (at least once).
 */
export async function redispatch(env: Bindings, now = Date.now()): Promise<number> {
  const rows = await undispatchedEvents(drizzle(env.DB), new Date(now - GRACE_MS).toISOString(), PER_RUN);
  await enqueueEvents(env.EVENTS, rows);
  return rows.length;
}
