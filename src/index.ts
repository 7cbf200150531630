import { app } from "./app";
import { deleteEventsBefore } from "./db/events";
import { deleteExpiredIdempotencyKeys } from "./db/idempotency-keys";
import { EVENT_RETENTION_DAYS } from "./domain/events";
import type { Bindings } from "./env";
import { consume } from "./events/consumer";
import type { QueueMessage } from "./events/messages";
import { redispatch } from "./events/redispatch";

// wrangler.toml [triggers] crons: every minute, events the queue never got are sent again; every
// hour, stored idempotent responses (24 h) and events (30 days) past their time are swept.
const HOURLY = "17 * * * *";

export default {
  fetch: app.fetch,
  queue: (batch, env, _ctx) => consume(batch, env),
  // Awaited, so that a failed run shows as failed in the Cron Trigger's history.
  async scheduled(controller, env, _ctx) {
    if (controller.cron !== HOURLY) {
      console.log(JSON.stringify({ job: "redispatch_events", sent: await redispatch(env) }));
      return;
    }
    const keys = await deleteExpiredIdempotencyKeys(env.DB);
    const events = await deleteEventsBefore(
      env.DB,
      new Date(controller.scheduledTime - EVENT_RETENTION_DAYS * 86_400_000).toISOString(),
    );
    console.log(JSON.stringify({ job: "sweep", expired_idempotency_keys: keys, expired_events: events }));
  },
} satisfies ExportedHandler<Bindings, QueueMessage>;
