import { stalledStatements } from "../db/bank-statements";
import { deleteEventsBefore } from "../db/events";
import { deleteExpiredIdempotencyKeys } from "../db/idempotency-keys";
import { EVENT_RETENTION_DAYS } from "../domain/events";
import type { Bindings } from "../env";
import { redispatchDeliveries } from "../deliveries/dispatch";
import { redispatch } from "../events/redispatch";
import { STALLED_MS } from "../payments/messages";
import { DUNNING_CRON, startDunning } from "./dunning";

/** The hourly cron of wrangler.jobs.toml [triggers]; the other one runs every minute. */
const HOURLY = "17 * * * *";

/**
 * The jobs Worker's Cron Triggers (wrangler.jobs.toml [triggers]): every minute, events the queue never
 * got, bank statements whose processing stopped moving and deliveries whose attempt is overdue are sent
 * again; every hour, stored idempotent
 * responses (24 h) and events (30 days) past their time are swept. Awaited, so that a failed run shows
 * as failed in the Cron Trigger's history.
 */
export async function scheduled(controller: ScheduledController, env: Bindings, _ctx: ExecutionContext) {
  // docs/api.md part 18: the daily dunning run, for the business day of the scheduled time (never the clock's).
  if (controller.cron === DUNNING_CRON) {
    try {
      await startDunning(env, controller.scheduledTime);
    } catch (error) {
      console.error(JSON.stringify({ level: "error", job: "dunning", error: String(error) }));
      throw error;
    }
    return;
  }
  if (controller.cron !== HOURLY) {
    console.log(JSON.stringify({ job: "redispatch_events", sent: await redispatch(env) }));
    const stalled = await stalledStatements(env.DB, new Date(controller.scheduledTime - STALLED_MS).toISOString());
    if (stalled.length > 0)
      await env.STATEMENTS.sendBatch(stalled.map(({ id }) => ({ body: { kind: "statement", statementId: id } })));
    console.log(JSON.stringify({ job: "resume_statements", sent: stalled.length }));
    // docs/api.md part 17: every delivery whose attempt is overdue (its message lost) is sent again.
    console.log(JSON.stringify({ job: "redispatch_deliveries", sent: await redispatchDeliveries(env) }));
    return;
  }
  const keys = await deleteExpiredIdempotencyKeys(env.DB);
  const events = await deleteEventsBefore(
    env.DB,
    new Date(controller.scheduledTime - EVENT_RETENTION_DAYS * 86_400_000).toISOString(),
  );
  console.log(JSON.stringify({ job: "sweep", expired_idempotency_keys: keys, expired_events: events }));
}
