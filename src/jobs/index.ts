import { endpoints } from "../app";
import type { Bindings } from "../env";
import { consume } from "../events/consumer";
import type { QueueMessage } from "../events/messages";
import { appOf } from "../http/app";
import type { StatementMessage } from "../payments/messages";
import { consumeStatements } from "../payments/statements";
import { jobsHandlers } from "./handlers";

/**
 * The jobs Worker (wrangler.jobs.toml): the queues' consumers, what is done off the request, and the
 * requests the API Worker passes on (http/pass-on.ts): the back office's, an invoice's payments and
 * documents. The events queues fan each event out into webhook deliveries and pushes
 * (src/events/consumer.ts); the statements queue reads and matches bank statements
 * (src/payments/statements.ts).
 */
export default {
  fetch: appOf("jobs", endpoints, jobsHandlers).fetch,
  queue: (batch, env, _ctx) =>
    batch.queue.startsWith("voucher-billing-statements")
      ? consumeStatements(batch as MessageBatch<StatementMessage>, env)
      : consume(batch as MessageBatch<QueueMessage>, env),
} satisfies ExportedHandler<Bindings, QueueMessage | StatementMessage>;
