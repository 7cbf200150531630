// The jobs Worker on the wrapped D1 (worker.ts beside): its consumer, crons and passed-on requests meet
// the API Worker's slow or failing D1 (scripts/local-worker.mjs, `companionMains`).
import jobs from "../../src/jobs/index";
import type { QueueMessage } from "../../src/events/messages";
import { counted, wrapped, type WrappedBindings } from "./worker";

export default {
  fetch: counted(jobs.fetch),
  queue: (batch, env, ctx) => jobs.queue(batch, wrapped(env), ctx),
  scheduled: (controller, env, ctx) => jobs.scheduled(controller, wrapped(env), ctx),
} satisfies ExportedHandler<WrappedBindings, QueueMessage>;
