// docs/api.md parts 6 and 11 end to end, under real `wrangler dev` (the vitest suites stand in for the
// queue): a change reaches a receiver on 127.0.0.1 as a signed webhook within 15 s, through the
// local queue and its consumer inside wrangler dev. Run by `npm run test:dev` (node --test).
// DEV_SERVER_PORT: where to look for free ports (default 8900): the Worker, its receiver on the next
// port, the Worker's inspector 1000 above.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { test } from "node:test";
import { sign } from "hono/jwt";
import { Webhook } from "standardwebhooks";
import { startWorker } from "../../scripts/local-worker.mjs";
import { firstFreePorts, INSPECTOR_OFFSET } from "../../scripts/ports.mjs";

const DELIVERY_WITHIN_MS = 15_000;
const SCOPES = "card_orders:read card_orders:write webhooks:write events:read invoices:write";

/** A receiver that keeps each delivery: `next()` resolves with the next one to arrive. */
async function startReceiver(port) {
  const arrived = [];
  const waiting = [];
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      response.writeHead(204).end();
      const delivery = { headers: request.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() };
      if (waiting.length) waiting.shift()(delivery);
      else arrived.push(delivery);
    });
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    next: () => (arrived.length ? Promise.resolve(arrived.shift()) : new Promise((resolve) => waiting.push(resolve))),
    stop: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

test("a submitted card order reaches a local receiver as a signed webhook within 15 s", {
  timeout: 180_000,
}, async (t) => {
  const port = await firstFreePorts(
    Number(process.env.DEV_SERVER_PORT ?? 8900),
    [0, 1, INSPECTOR_OFFSET],
    "DEV_SERVER_PORT",
  );
  const receiver = await startReceiver(port + 1);
  t.after(() => receiver.stop());
  const jwtSecret = randomBytes(32).toString("hex");
  const worker = await startWorker({
    name: "webhook-delivery-test",
    port,
    vars: { JWT_SECRET: jwtSecret, APP_SECRET: randomBytes(32).toString("hex"), ALLOW_LOCAL_WEBHOOKS: "true" },
  });
  t.after(() => worker.stop());

  const token = await sign(
    { sub: "dev-server-test", customer_id: "customer-dev", scope: SCOPES, exp: Math.floor(Date.now() / 1000) + 600 },
    jwtSecret,
    "HS256",
  );
  const api = async (method, path, json) => {
    const headers = { Authorization: `Bearer ${token}`, ...(json && { "Content-Type": "application/json" }) };
    const response = await fetch(worker.url + path, { method, headers, body: json && JSON.stringify(json) });
    return { status: response.status, body: await response.json() };
  };

  const profile = {
    legal_name: "Dev GmbH",
    street: "Hauptstraße 1",
    postcode: "10115",
    city: "Berlin",
    country_code: "DE",
    email: "rechnung@dev.example",
  };
  assert.equal((await api("PUT", "/customers/me/billing_profile", profile)).status, 200);
  // Subscribed to the submit alone: the billing profile's event (above) may be fanned out after this.
  const endpoint = await api("POST", "/webhook_endpoints", {
    url: receiver.url,
    event_types: ["card_order.submitted"],
  });
  assert.equal(endpoint.status, 201);
  const order = await api("POST", "/card_orders", { voucher_category: "gift", payment_method: "bank_transfer" });
  assert.equal(order.status, 201);
  const orderId = order.body.data[0].id;
  assert.equal(
    (
      await api("POST", `/card_orders/${orderId}/entries`, {
        voucher_owner_id: "owner-1",
        card_holder_name: "Ada Lovelace",
        amount: "25.05",
      })
    ).status,
    201,
  );
  const submitted = await api("POST", `/card_orders/${orderId}/submit`);
  assert.equal(submitted.status, 200);
  const changedAt = Date.now();

  const delivery = await Promise.race([
    receiver.next(),
    new Promise((_, reject) =>
      setTimeout(
        () => reject(new Error(`no delivery within ${DELIVERY_WITHIN_MS / 1000} s`)),
        DELIVERY_WITHIN_MS,
      ).unref(),
    ),
  ]);
  assert.ok(delivery.at - changedAt <= DELIVERY_WITHIN_MS);
  // As a receiver verifies it: the signature over id, timestamp and body, with the endpoint's secret.
  const event = new Webhook(endpoint.body.data[0].secret).verify(delivery.body, delivery.headers);
  assert.equal(event.type, "card_order.submitted");
  assert.deepEqual(event.data, submitted.body.data);
  const listed = await api("GET", "/events?type=card_order.submitted");
  assert.deepEqual(listed.body.data, [event]);
  assert.equal(delivery.headers["webhook-id"], event.id);
});
