import type { Bindings } from "../env";
import { consume } from "../events/consumer";
import type { QueueMessage } from "../events/messages";

/**
 * The jobs Worker (wrangler.jobs.toml): the queues' consumers, what is done off the request. The
 * events queue's fans each event out into webhook deliveries and pushes (src/events/consumer.ts).
 */
export default {
  queue: (batch, env, _ctx) => consume(batch, env),
} satisfies ExportedHandler<Bindings, QueueMessage>;
