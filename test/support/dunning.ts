import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { DunningMessage } from "../../src/jobs/dunning-messages";
import jobs from "../../src/jobs/index";
import { deliveriesQueued } from "./deliveries";
import { queued, RecordingQueue } from "./queue";

// docs/api.md part 18: the daily dunning run as the tests drive it: the jobs Worker's cron for a chosen
// business day (05:30 UTC is that day in Berlin), then every message of the dunning queue it leads to,
// consumed here until none is left.

/** The dunning queue (DUNNING): what the run queued waits here. */
export const dunningQueued = new RecordingQueue<DunningMessage>();

/**
 * The run for `day`, to its end. `drop`: that many chunk messages are lost on the way (a run that stopped
 * halfway: their invocations died before they did anything).
 */
export async function runDunning(day: string, bindings: Partial<Cloudflare.Env> = {}, drop = 0): Promise<void> {
  const all = {
    ...env,
    EVENTS: queued.binding,
    DELIVERIES: deliveriesQueued.binding,
    DUNNING: dunningQueued.binding,
    ...bindings,
  };
  const ctx = createExecutionContext();
  await jobs.scheduled(
    createScheduledController({ scheduledTime: Date.parse(`${day}T05:30:00Z`), cron: "30 5 * * *" }),
    all,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  let dropped = 0;
  for (let bodies = dunningQueued.take(); bodies.length > 0; bodies = dunningQueued.take()) {
    const kept = bodies.filter((b) => b.kind !== "dunning_chunk" || dropped++ >= drop);
    if (kept.length > 0) await consumeDunning(kept, all);
  }
}

/** One batch of `bodies` through the jobs Worker's dunning consumer; every message must be acked. */
export async function consumeDunning(bodies: DunningMessage[], bindings: Partial<Cloudflare.Env> = {}) {
  const batch = createMessageBatch<DunningMessage>(
    "voucher-billing-dunning",
    bodies.map((body, i) => ({ id: `dunning-${i}`, timestamp: new Date(), attempts: 1, body })),
  );
  const acked: boolean[] = [];
  batch.messages.forEach((message, i) => {
    message.ack = () => void (acked[i] = true);
    message.retry = () => void (acked[i] = false);
  });
  const ctx = createExecutionContext();
  await jobs.queue(
    batch as never,
    {
      ...env,
      EVENTS: queued.binding,
      DELIVERIES: deliveriesQueued.binding,
      DUNNING: dunningQueued.binding,
      ...bindings,
    },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  expect(acked.filter(Boolean)).toHaveLength(bodies.length);
}
