import { app } from "./app";
import { deleteEventsBefore } from "./db/events";
import { deleteExpiredIdempotencyKeys } from "./db/idempotency-keys";
import { EVENT_RETENTION_DAYS } from "./domain/events";
import type { Bindings } from "./env";
import { redispatch } from "./events/redispatch";

// The API Worker (wrangler.toml): the requests, and its Cron Triggers: every minute, events the queue
// never got are sent again; every hour, stored idempotent responses (24 h) and events (30 days) past
// their time are swept. The queues' consumers run in the jobs Worker (src/jobs, wrangler.jobs.toml),
// whose code this Worker's bundle, which every request's isolate loads, does not carry.
const HOURLY = "17 * * * *";

export default {
  fetch: app.fetch,
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
} satisfies ExportedHandler<Bindings>;
