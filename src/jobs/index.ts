import { endpoints } from "../app";
import type { Bindings } from "../env";
import { consume } from "../events/consumer";
import type { QueueMessage } from "../events/messages";
import { appOf } from "../http/app";
import type { StatementMessage } from "../payments/messages";
import { consumeStatements } from "../payments/statements";
import { scheduled } from "./crons";
import { jobsHandlers } from "./handlers";

/**
 * The jobs Worker (wrangler.jobs.toml): the queues' consumers, what is done off the request, and the
 * requests the API Worker passes on (http/pass-on.ts): the back office's, an invoice's payments and
 * documents. The events queues fan each event out into webhook deliveries and pushes
 * (src/events/consumer.ts); the statements queue reads and matches bank statements
 * (src/payments/statements.ts). Its Cron Triggers (wrangler.jobs.toml [triggers]) send again what a
 * queue never got or stopped carrying, and sweep what is past its time (./crons.ts).
 */
export default {
  fetch: appOf("jobs", endpoints, jobsHandlers).fetch,
  queue: (batch, env, _ctx) =>
    batch.queue.startsWith("voucher-billing-statements")
      ? consumeStatements(batch as MessageBatch<StatementMessage>, env)
      : consume(batch as MessageBatch<QueueMessage>, env),
  scheduled,
} satisfies ExportedHandler<Bindings, QueueMessage | StatementMessage>;
