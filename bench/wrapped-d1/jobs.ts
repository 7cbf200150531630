// The jobs Worker with its D1 binding wrapped (worker.ts beside), for the load run: its queue consumer,
// its Cron Triggers and the requests the API Worker passes on meet the same slow or failing D1 as the
// API Worker (scripts/local-worker.mjs, `companionMains`).
import jobs from "../../src/jobs/index";
import type { QueueMessage } from "../../src/events/messages";
import { counted, wrapped, type WrappedBindings } from "./worker";

export default {
  fetch: counted(jobs.fetch),
  queue: (batch, env, ctx) => jobs.queue(batch, wrapped(env), ctx),
  scheduled: (controller, env, ctx) => jobs.scheduled(controller, wrapped(env), ctx),
} satisfies ExportedHandler<WrappedBindings, QueueMessage>;
