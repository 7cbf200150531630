import { endpoints } from "../app";
import type { Bindings } from "../env";
import { consume } from "../events/consumer";
import type { QueueMessage } from "../events/messages";
import { appOf } from "../http/app";
import type { StatementMessage } from "../payments/messages";
import { consumeStatements } from "../payments/statements";
import { startDeliveries } from "../deliveries/dispatch";
import type { DeliveryMessage, EmailSendingEvent } from "../deliveries/messages";
import { consumeEmailEvents } from "../deliveries/outcomes";
import { consumeDeliveries } from "../deliveries/send";
import { scheduled } from "./crons";
import { consumeDunning } from "./dunning";
import type { DunningMessage } from "./dunning-messages";
import { jobsHandlers } from "./handlers";

type Consumed = QueueMessage | StatementMessage | DeliveryMessage | EmailSendingEvent | DunningMessage;

/**
 * The jobs Worker (wrangler.jobs.toml): the queues' consumers, what is done off the request, and the
 * requests the API Worker passes on (http/pass-on.ts): the back office's, an invoice's payments and
 * documents. The events queues fan each event out into webhook deliveries and pushes
 * (src/events/consumer.ts); the statements queue reads and matches bank statements
 * (src/payments/statements.ts); the deliveries queue e-mails documents to buyers and the delivery-events
 * queue takes what Email Service reports of them (src/deliveries, docs/api.md part 17). Its Cron Triggers
 * (wrangler.jobs.toml [triggers]) send again what a queue never got or stopped carrying, and sweep what
 * is past its time (./crons.ts).
 */
export default {
  fetch: appOf("jobs", endpoints, jobsHandlers).fetch,
  async queue(batch, env, _ctx) {
    const { queue } = batch;
    if (queue.startsWith("voucher-billing-statements"))
      return consumeStatements(batch as MessageBatch<StatementMessage>, env);
    if (queue.startsWith("voucher-billing-invoice-deliveries"))
      return consumeDeliveries(batch as MessageBatch<DeliveryMessage>, env);
    if (queue.startsWith("voucher-billing-dunning")) return consumeDunning(batch as MessageBatch<DunningMessage>, env);
    if (queue.startsWith("voucher-billing-email-events"))
      return consumeEmailEvents(batch as MessageBatch<EmailSendingEvent>, env);
    const events = batch as MessageBatch<QueueMessage>;
    // docs/api.md part 17: an issued or cancelled invoice's events start its deliveries.
    if (queue === "voucher-billing-events") await startDeliveries(env, events.messages);
    return consume(events, env);
  },
  scheduled,
} satisfies ExportedHandler<Bindings, Consumed>;
