// The load's own webhook receiver (docs/api.md part 11): one endpoint per tenant on 127.0.0.1, every
// delivery verified with that tenant's secret as a receiver would (Standard Webhooks), and kept.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";
import { runCron } from "../local-worker.mjs";

// wrangler dev runs no Cron Trigger; the run plays the per-minute one while it waits, so that events
// whose request lost its answer after the commit (never handed to the queue) are sent again.
const CRON_EVERY_MS = 5_000;
const CRON_FAILURES_TOLERATED = 5;
const REDISPATCH = "* * * * *";

/** Starts the receiver: `/<tenant id>` is that tenant's endpoint; `secrets` is filled in once registered. */
export async function startReceiver(port) {
  const receiver = {
    url: `http://127.0.0.1:${port}`,
    lastDelivery: 0,
    secrets: new Map(), // tenant id -> whsec_...
    received: new Map(), // tenant id -> Map(webhook-id -> { times, body, at: first arrival })
    counts: { deliveries: 0, invalid: 0 },
    stop: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      receiver.counts.deliveries++;
      const tenant = decodeURIComponent(new URL(request.url, "http://receiver").pathname.slice(1));
      const body = Buffer.concat(chunks).toString("utf8");
      try {
        if (!receiver.secrets.has(tenant)) throw new Error(`no endpoint ${tenant}`);
        new Webhook(receiver.secrets.get(tenant)).verify(body, request.headers);
      } catch {
        // A receiver refuses what it cannot verify; the service would try again.
        receiver.counts.invalid++;
        response.writeHead(400).end();
        return;
      }
      if (!receiver.received.has(tenant)) receiver.received.set(tenant, new Map());
      const seen = receiver.received.get(tenant);
      const id = request.headers["webhook-id"];
      if (seen.has(id)) seen.get(id).times++;
      else seen.set(id, { times: 1, body, at: Date.now() });
      receiver.lastDelivery = Date.now();
      response.writeHead(204).end();
    });
  });
  await new Promise((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", resolve));
  return receiver;
}

/** Each tenant subscribes the receiver to every event type and keeps the secret, shown this once. */
export async function registerEndpoints(world, receiver) {
  for (const tenant of world.tenants) {
    const principal = world.principals.find((p) => p.tenant === tenant);
    const json = { url: `${receiver.url}/${encodeURIComponent(tenant.id)}`, event_types: ["*"] };
    const result = await world.send(principal, "POST", "/webhook_endpoints", { json, key: randomUUID() });
    if (result.status !== 201) throw new Error(`POST /webhook_endpoints answered ${result.status}: ${result.text}`);
    receiver.secrets.set(tenant.id, result.body.data[0].secret);
  }
}

/** Waits for every event at its endpoint (or `boundMs` after `since`, or abort), running the cron; ms to the last. */
export async function awaitDeliveries(
  receiver,
  workerUrl,
  eventsByTenant,
  { since, boundMs, stopSignal, faulty = false },
) {
  const missing = () =>
    [...eventsByTenant].some(([tenant, events]) =>
      events.some((event) => !receiver.received.get(tenant)?.has(event.id)),
    );
  let nextCron = Date.now() + CRON_EVERY_MS;
  let failedInARow = 0;
  while (missing() && Date.now() - since < boundMs && !stopSignal.aborted) {
    if (Date.now() >= nextCron) {
      nextCron += CRON_EVERY_MS;
      try {
        await runCron(workerUrl, REDISPATCH);
        failedInARow = 0;
      } catch (error) {
        // Under --faults a run may fail on an injected D1 fault and is the next one's to do; a cron
        // that never runs (a wrong route, a broken handler) fails the load instead of hiding a loss.
        if (!faulty || ++failedInARow >= CRON_FAILURES_TOLERATED) throw error;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return Math.max(0, (missing() ? Date.now() : receiver.lastDelivery) - since);
}

// --noisy-neighbour (issue 25): 5 endpoints that never answer, one that answers 500, one that redirects.
const NOISY = [...Array.from({ length: 5 }, (_, i) => `hang/${i}`), "fail", "redirect"];

/** The misbehaving endpoints' server. */
export async function startNoisyServer(port) {
  const server = createServer((request, response) => {
    request.resume();
    if (request.url === "/fail") response.writeHead(500).end();
    else if (request.url === "/redirect") response.writeHead(302, { Location: "http://127.0.0.1:9/" }).end();
    // /hang/*: nothing, until the Worker gives up on it.
  });
  await new Promise((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Subscribes the first tenant's misbehaving endpoints; returns that tenant, whose neighbours are measured. */
export async function registerNoisyEndpoints(world, server) {
  const noisy = world.tenants[0];
  const principal = world.principals.find((p) => p.tenant === noisy);
  for (const path of NOISY) {
    const result = await world.send(principal, "POST", "/webhook_endpoints", {
      json: { url: `${server.url}/${path}`, event_types: ["*"] },
      key: randomUUID(),
    });
    if (result.status !== 201) throw new Error(`POST /webhook_endpoints answered ${result.status}: ${result.text}`);
  }
  return noisy;
}

/** Seconds from each event of every tenant but `noisy` to its first arrival at the receiver, sorted. */
export function firstAttemptSeconds(receiver, noisy) {
  const seconds = [];
  for (const [tenant, deliveries] of receiver.received) {
    if (tenant === noisy.id) continue;
    for (const { body, at } of deliveries.values()) seconds.push((at - Date.parse(JSON.parse(body).created_at)) / 1000);
  }
  return seconds.sort((a, b) => a - b);
}
