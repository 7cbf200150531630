// The jobs Worker on the latency scenario's D1 (worker.ts beside): what the API Worker passes on to it
// is counted there, and its queue consumer meets the same delay.
import jobs from "../../src/jobs/index";
import type { QueueMessage } from "../../src/events/messages";
import { counted, delayed, type DelayedBindings } from "./worker";

export default {
  fetch: counted(jobs.fetch),
  queue: (batch, env, ctx) => jobs.queue(batch, delayed(env), ctx),
  scheduled: (controller, env, ctx) => jobs.scheduled(controller, delayed(env), ctx),
} satisfies ExportedHandler<DelayedBindings, QueueMessage>;
