import { stalledStatements } from "./db/bank-statements";
import { deleteEventsBefore } from "./db/events";
import { deleteExpiredIdempotencyKeys } from "./db/idempotency-keys";
import { EVENT_RETENTION_DAYS } from "./domain/events";
import { endpoints } from "./app";
import type { Bindings } from "./env";
import { appOf } from "./http/app";
import { passedOn } from "./http/pass-on";
import { redispatch } from "./events/redispatch";
import { STALLED_MS } from "./payments/messages";

// The API Worker (wrangler.toml): the requests, and its Cron Triggers: every minute, events the queue
// never got and bank statements whose processing stopped moving are sent again; every hour, stored
// idempotent responses (24 h) and events (30 days) past their time are swept. The queues' consumers
// and the requests this Worker passes on (http/pass-on.ts) run in the jobs Worker (src/jobs,
// wrangler.jobs.toml), whose code this Worker's bundle, which every request's isolate loads, does not carry.
const HOURLY = "17 * * * *";
const app = appOf("api", endpoints);
const isPassedOn = passedOn(endpoints);

export default {
  // A request passed on goes as it came, body unread, its URL (and so its links) unchanged.
  fetch: (request, env, ctx) => (isPassedOn(request) ? env.JOBS.fetch(request) : app.fetch(request, env, ctx)),
  // Awaited, so that a failed run shows as failed in the Cron Trigger's history.
  async scheduled(controller, env, _ctx) {
    if (controller.cron !== HOURLY) {
      console.log(JSON.stringify({ job: "redispatch_events", sent: await redispatch(env) }));
      const stalled = await stalledStatements(env.DB, new Date(controller.scheduledTime - STALLED_MS).toISOString());
      if (stalled.length > 0)
        await env.STATEMENTS.sendBatch(stalled.map(({ id }) => ({ body: { kind: "statement", statementId: id } })));
      console.log(JSON.stringify({ job: "resume_statements", sent: stalled.length }));
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
