import { createExecutionContext, createMessageBatch, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { QueueMessage } from "../../src/events/messages";
import jobs from "../../src/jobs/index";

/**
 * Stands in for the events queue in the Worker's env (support/api.ts `send`), so that no consumer
 * runs behind a test's back: what the Worker handed over waits here for the test that looks.
 */
export class RecordingQueue {
  readonly messages: QueueMessage[] = [];

  async send(body: QueueMessage): Promise<void> {
    this.messages.push(body);
  }

  async sendBatch(messages: Iterable<MessageSendRequest<QueueMessage>>): Promise<void> {
    for (const { body } of messages) this.messages.push(body);
  }

  /** The messages so far, and forget them. */
  take(): QueueMessage[] {
    return this.messages.splice(0);
  }

  get binding(): Queue<QueueMessage> {
    return this as unknown as Queue<QueueMessage>;
  }
}

/** The queue every call gets unless it brings its own. */
export const queued = new RecordingQueue();
/** The slow lane of webhook deliveries (SLOW_DELIVERIES), which drain() consumes beside it. */
export const slowQueued = new RecordingQueue();

export interface Outcome {
  /** The queue it was consumed from. */
  queue: string;
  body: QueueMessage;
  acked: boolean;
  /** The delay of the retry it asked for, if it asked for one. */
  retried?: { delaySeconds?: number };
}

/**
 * Runs the jobs Worker's queue consumer over what was queued, and over what that queued in turn, until
 * nothing is left (a fan-out queues deliveries and pushes; the fast lane hands slow deliveries to the
 * slow lane). A retry is recorded, not re-run: the test decides. Returns every message's outcome, in
 * the order consumed.
 */
export async function drain(
  bindings: Partial<Cloudflare.Env> = {},
  queue = "voucher-billing-events",
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const lanes = [
    { name: queue, from: queued },
    { name: "voucher-billing-deliveries-slow", from: slowQueued },
  ];
  for (let round = 0; round < 10 && lanes.some((lane) => lane.from.messages.length > 0); round++) {
    for (const lane of lanes) {
      if (lane.from.messages.length === 0) continue;
      const batch = createMessageBatch<QueueMessage>(
        lane.name,
        lane.from.take().map((body, i) => ({ id: `m-${round}-${i}`, timestamp: new Date(), attempts: 1, body })),
      );
      const seen = batch.messages.map((message) => {
        const outcome: Outcome = { queue: lane.name, body: message.body, acked: false };
        const { ack, retry } = message;
        message.ack = () => ((outcome.acked = true), ack.call(message));
        message.retry = (options?: QueueRetryOptions) => (
          (outcome.retried = { ...options }), retry.call(message, options)
        );
        return outcome;
      });
      const ctx = createExecutionContext();
      await jobs.queue(
        batch,
        { ...env, EVENTS: queued.binding, SLOW_DELIVERIES: slowQueued.binding, ...bindings },
        ctx,
      );
      await waitOnExecutionContext(ctx);
      outcomes.push(...seen);
    }
  }
  return outcomes;
}
