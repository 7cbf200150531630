import { createExecutionContext, createMessageBatch, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { QueueMessage } from "../../src/events/messages";
import jobs from "../../src/jobs/index";
import type { StatementMessage } from "../../src/payments/messages";

/**
 * Stands in for a queue in the Worker's env (support/api.ts `send`), so that no consumer runs behind a
 * test's back: what the Worker handed over waits here for the test that looks.
 */
export class RecordingQueue<T = QueueMessage> {
  readonly messages: T[] = [];

  async send(body: T): Promise<void> {
    this.messages.push(body);
  }

  async sendBatch(messages: Iterable<MessageSendRequest<T>>): Promise<void> {
    for (const { body } of messages) this.messages.push(body);
  }

  /** The messages so far, and forget them. */
  take(): T[] {
    return this.messages.splice(0);
  }

  get binding(): Queue<T> {
    return this as unknown as Queue<T>;
  }
}

/** The events queue every call gets unless it brings its own. */
export const queued = new RecordingQueue();
/** The slow lane of webhook deliveries (SLOW_DELIVERIES), which drain() consumes beside it. */
export const slowQueued = new RecordingQueue();
/** The statements queue (STATEMENTS), which drainStatements() consumes. */
export const statementsQueued = new RecordingQueue<StatementMessage>();

export interface Outcome<T = QueueMessage> {
  /** The queue it was consumed from. */
  queue: string;
  body: T;
  acked: boolean;
  /** The delay of the retry it asked for, if it asked for one. */
  retried?: { delaySeconds?: number };
}

/**
 * One batch of `bodies` from `queue` through the jobs Worker's queue consumer, each message on its
 * `attempts`-th attempt, as the platform's queue hands it over; returns each message's outcome.
 */
export async function consume(
  queue: string,
  bodies: QueueMessage[],
  {
    attempts = 1,
    bindings = {},
    id = "m",
  }: { attempts?: number; bindings?: Partial<Cloudflare.Env>; id?: string } = {},
): Promise<Outcome[]> {
  const batch = createMessageBatch<QueueMessage>(
    queue,
    bodies.map((body, i) => ({ id: `${id}-${i}`, timestamp: new Date(), attempts, body })),
  );
  const outcomes = batch.messages.map((message) => {
    const outcome: Outcome = { queue, body: message.body, acked: false };
    const { ack, retry } = message;
    message.ack = () => ((outcome.acked = true), ack.call(message));
    message.retry = (options?: QueueRetryOptions) => ((outcome.retried = { ...options }), retry.call(message, options));
    return outcome;
  });
  const ctx = createExecutionContext();
  await jobs.queue(batch, { ...env, EVENTS: queued.binding, SLOW_DELIVERIES: slowQueued.binding, ...bindings }, ctx);
  await waitOnExecutionContext(ctx);
  return outcomes;
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
      if (lane.from.messages.length > 0)
        outcomes.push(...(await consume(lane.name, lane.from.take(), { bindings, id: `m-${round}` })));
    }
  }
  return outcomes;
}

/**
 * Runs the jobs Worker's statements consumer (src/payments/statements.ts) over the statements queued,
 * one message a batch as deployed (wrangler.jobs.toml), and over the continuations it queues, until
 * none is left. A retry is recorded, not re-run. The events the matching made wait in `queued`.
 */
export async function drainStatements(bindings: Partial<Cloudflare.Env> = {}): Promise<Outcome<StatementMessage>[]> {
  const outcomes: Outcome<StatementMessage>[] = [];
  for (let round = 0; round < 1000 && statementsQueued.messages.length > 0; round++) {
    const body = statementsQueued.messages.shift()!;
    const batch = createMessageBatch<StatementMessage>("voucher-billing-statements", [
      { id: `s-${round}`, timestamp: new Date(), attempts: 1, body },
    ]);
    const [message] = batch.messages;
    const outcome: Outcome<StatementMessage> = { queue: "voucher-billing-statements", body, acked: false };
    const { ack, retry } = message!;
    message!.ack = () => ((outcome.acked = true), ack.call(message));
    message!.retry = (options?: QueueRetryOptions) => (
      (outcome.retried = { ...options }), retry.call(message, options)
    );
    const ctx = createExecutionContext();
    await jobs.queue(batch, { ...env, EVENTS: queued.binding, STATEMENTS: statementsQueued.binding, ...bindings }, ctx);
    await waitOnExecutionContext(ctx);
    outcomes.push(outcome);
  }
  return outcomes;
}
