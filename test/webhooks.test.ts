import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { toBase64 } from "../src/crypto/base64";
import { keyFor } from "../src/crypto/keys";
import { open } from "../src/crypto/secret-box";
import { sealedFor } from "../src/db/idempotency-keys";
import { MAX_ATTEMPTS, retryDelaySeconds } from "../src/events/retry";
import { endpoints } from "../src/app";
import { EVENT_TYPES } from "../src/domain/events";
import { openApiDocument } from "../src/openapi/document";
import { NewWebhookEndpoint, WebhookEndpoint } from "../src/schemas/webhook-endpoint";
import {
  call,
  customerOfToken,
  createInvoice,
  expectError,
  expectJson,
  ISO_MS,
  newBillingProfile,
  orderIn,
  send,
  singlePage,
  token,
  unique,
  UUID,
} from "./support/api";
import { requestOf, routeExamples } from "./support/examples";
import { outbound } from "./support/outbound";
import { backOffice, collectableInvoice, credit, earliestDate, statementFile, uploadFile } from "./support/payments";
import { runDunning } from "./support/dunning";
import { addDays } from "../src/domain/time";
import { deliveriesQueued, drainDeliveries, emailEvent, feedEmailEvents, RecordingEmail } from "./support/deliveries";
import { consume, drain, drainStatements, queued, slowQueued } from "./support/queue";
import { fieldsOf } from "./support/shape";

// docs/api.md parts 11 and 12: webhook endpoints, and deliveries per Standard Webhooks.

const ENDPOINTS = "/webhook_endpoints";
const subscribe = (auth: string, json: object, bindings = {}) => call(ENDPOINTS, { token: auth, json, env: bindings });

async function created(
  auth: string,
  json: object = { url: "https://hooks.example/in", event_types: ["*"] },
): Promise<any> {
  const response = await subscribe(auth, json);
  expect(response.status).toBe(201);
  return ((await response.json()) as any).data[0];
}

/** A value sealed as rows written before sealing named the row hold it (v1: no associated data). */
async function sealedForNoRow(purpose: "webhook-secrets" | "stored-responses", plaintext: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ciphertext = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv },
    await keyFor(env.APP_SECRET, purpose),
    new TextEncoder().encode(plaintext),
  );
  return `v1.${toBase64(iv)}.${toBase64(new Uint8Array(ciphertext))}`;
}

/** The error lines the Worker logs from now on (and nothing on the console). */
function errorLines(): string[] {
  const lines: string[] = [];
  vi.spyOn(console, "error").mockImplementation((line: unknown) => void lines.push(String(line)));
  return lines;
}

beforeEach(() => void queued.take());
afterEach(() => vi.restoreAllMocks());

describe("POST /webhook_endpoints", () => {
  it("under an Idempotency-Key, stores its response sealed (no plain secret) and replays it whole", async () => {
    const sub = unique("user");
    const auth = await token({ sub });
    const headers = { "Idempotency-Key": unique("key") };
    const json = { url: "https://hooks.example/keyed", event_types: ["*"] };
    const first = await call(ENDPOINTS, { token: auth, json, headers });
    expect(first.status).toBe(201);
    const text = await first.text();
    const secret = JSON.parse(text).data[0].secret as string;

    const stored = await env.DB.prepare("SELECT body FROM idempotency_keys WHERE key = ?")
      .bind(headers["Idempotency-Key"])
      .first<string>("body");
    expect(stored).not.toContain(secret.slice("whsec_".length));
    expect(stored).not.toContain("hooks.example");
    expect(stored).toMatch(/^v2\./);
    expect(
      await open(env, "stored-responses", sealedFor({ principal: sub, key: headers["Idempotency-Key"] }), stored!),
    ).toBe(text);

    const again = await call(ENDPOINTS, { token: auth, json, headers });
    expect({
      status: again.status,
      replayed: again.headers.get("Idempotent-Replayed"),
      text: await again.text(),
    }).toStrictEqual({ status: 201, replayed: "true", text });
    expect((await expectJson(await call(ENDPOINTS, { token: auth }), 200, expect.anything())).data).toHaveLength(1);
  });

  it.each([
    ["another key of the same principal", false],
    ["a key of another principal", true],
  ])("does not replay a sealed response copied into %s: 500, showing nothing of it", async (_, otherPrincipal) => {
    const keyed = async (sub: string, url: string) => {
      const request = {
        token: await token({ sub }),
        json: { url, event_types: ["*"] },
        headers: { "Idempotency-Key": unique("key") },
      };
      const response = await call(ENDPOINTS, request);
      expect(response.status).toBe(201);
      return { sub, request, text: await response.text() };
    };
    const source = await keyed(unique("user"), "https://hooks.example/source");
    const target = await keyed(otherPrincipal ? unique("user") : source.sub, "https://hooks.example/target");
    await env.DB.prepare(
      "UPDATE idempotency_keys SET body = (SELECT body FROM idempotency_keys WHERE principal = ?1 AND key = ?2) " +
        "WHERE principal = ?3 AND key = ?4",
    )
      .bind(
        source.sub,
        source.request.headers["Idempotency-Key"],
        target.sub,
        target.request.headers["Idempotency-Key"],
      )
      .run();

    const errors = errorLines();
    const body = await expectError(await call(ENDPOINTS, target.request), 500, { code: "internal_error" });
    expect(JSON.stringify(body)).not.toMatch(/whsec_|hooks\.example/);
    expect(errors.map((line) => JSON.parse(line).error)).toStrictEqual([
      expect.stringMatching(/^UnreadableSealedValue: .* sealed for another row$/),
    ]);
    // In its own row, it still replays.
    expect(await (await call(ENDPOINTS, source.request)).text()).toBe(source.text);
  });

  it("replays a response sealed before sealing named the row (v1), as rows stored then hold it", async () => {
    const sub = unique("user");
    const request = {
      token: await token({ sub }),
      json: { url: "https://hooks.example/v1", event_types: ["*"] },
      headers: { "Idempotency-Key": unique("key") },
    };
    const text = await (await call(ENDPOINTS, request)).text();
    await env.DB.prepare("UPDATE idempotency_keys SET body = ? WHERE principal = ? AND key = ?")
      .bind(await sealedForNoRow("stored-responses", text), sub, request.headers["Idempotency-Key"])
      .run();
    const again = await call(ENDPOINTS, request);
    expect({
      status: again.status,
      replayed: again.headers.get("Idempotent-Replayed"),
      text: await again.text(),
    }).toStrictEqual({ status: 201, replayed: "true", text });
  });

  it("replays a response sealed under an old APP_SECRET kept in APP_SECRETS_PREVIOUS; without it, 500", async () => {
    const auth = await token();
    const headers = { "Idempotency-Key": unique("key") };
    const json = { url: "https://hooks.example/rotated", event_types: ["*"] };
    const first = await call(ENDPOINTS, { token: auth, json, headers, env: { APP_SECRET: "secret-a" } });
    expect(first.status).toBe(201);
    const text = await first.text();

    const again = await call(ENDPOINTS, {
      token: auth,
      json,
      headers,
      env: { APP_SECRET: "secret-b", APP_SECRETS_PREVIOUS: "secret-a" },
    });
    expect({
      status: again.status,
      replayed: again.headers.get("Idempotent-Replayed"),
      text: await again.text(),
    }).toStrictEqual({ status: 201, replayed: "true", text });
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const body = await expectError(
      await call(ENDPOINTS, { token: auth, json, headers, env: { APP_SECRET: "secret-b" } }),
      500,
      { code: "internal_error" },
    );
    expect(JSON.stringify(body)).not.toContain("whsec_");
  });

  it("answers 201 with the endpoint and its secret, shown this once; the stored secret is sealed", async () => {
    const auth = await token();
    const json = { url: "https://hooks.example/in?x=1", event_types: ["invoice.paid", "card_order.delivered"] };
    const body = await expectJson(
      await subscribe(auth, json),
      201,
      singlePage(ENDPOINTS, [
        {
          id: expect.stringMatching(UUID),
          type: "webhook_endpoint",
          ...json,
          secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
          created_at: expect.stringMatching(ISO_MS),
        },
      ]),
    );
    const [endpoint] = body.data;
    expect(Object.keys(endpoint)).toStrictEqual(fieldsOf(NewWebhookEndpoint));
    expect(atob(endpoint.secret.slice("whsec_".length)).length).toBeGreaterThanOrEqual(24);

    const row = await env.DB.prepare("SELECT * FROM webhook_endpoints WHERE id = ?")
      .bind(endpoint.id)
      .first<Record<string, string>>();
    expect(JSON.stringify(row)).not.toContain(endpoint.secret.slice("whsec_".length));
    expect(await open(env, "webhook-secrets", endpoint.id, row!.encrypted_secret!)).toBe(endpoint.secret);

    const { secret: _, ...listed } = endpoint;
    const list = await expectJson(await call(ENDPOINTS, { token: auth }), 200, expect.anything());
    expect(list.data).toStrictEqual([listed]);
    expect(Object.keys(list.data[0])).toStrictEqual(fieldsOf(WebhookEndpoint));
  });

  it.each<[string, object, string]>([
    ["http to a public host", { url: "http://hooks.example/in" }, "/url"],
    ["not a URL", { url: "hooks.example/in" }, "/url"],
    ["another scheme", { url: "ftp://hooks.example/in" }, "/url"],
    ["credentials in the URL", { url: "https://user:pass@hooks.example/in" }, "/url"],
    ["a URL of 2,049 characters", { url: `https://hooks.example/${"x".repeat(2049 - 22)}` }, "/url"],
    ["a number", { url: 42 }, "/url"],
    ["no event type", { event_types: [] }, "/event_types"],
    ["event_types a string", { event_types: "*" }, "/event_types"],
    ["an unknown type", { event_types: ["invoice.paid", "invoice.refunded"] }, "/event_types/1"],
    ['"*" beside a type', { event_types: ["invoice.paid", "*"] }, "/event_types/1"],
    ['"*" first beside a type', { event_types: ["*", "invoice.paid"] }, "/event_types/0"],
    ["a repeated type", { event_types: ["invoice.paid", "card_order.delivered", "invoice.paid"] }, "/event_types/2"],
  ])("answers 422 with the pointer for %s", async (_, fields, pointer) => {
    const auth = await token();
    await expectError(await subscribe(auth, { url: "https://hooks.example/in", event_types: ["*"], ...fields }), 422, {
      code: "validation_failed",
      source: { pointer },
    });
    expect((await expectJson(await call(ENDPOINTS, { token: auth }), 200, expect.anything())).data).toStrictEqual([]);
  });

  it.each([
    "http://localhost:8080/hook",
    "https://127.0.0.1/hook",
    "http://10.1.2.3/",
    "http://172.16.0.1/",
    "https://192.168.1.1/",
    "http://169.254.169.254/latest",
    "http://[::1]:9000/",
    "http://2130706433/",
    "https://foo.localhost/",
    "http://[fd00::1]/",
    "https://[::ffff:127.0.0.1]:9351/hook",
    "https://[::ffff:169.254.169.254]/",
    "https://[::127.0.0.1]/",
    "https://[::ffff:0:127.0.0.1]/",
    "https://100.64.0.1/",
    "https://198.18.0.1/",
    "https://224.0.0.1/",
    "https://255.255.255.255/",
    "https://[fec0::1]/",
    "https://[64:ff9b::7f00:1]/",
  ])('accepts the local host %s only while ALLOW_LOCAL_WEBHOOKS is "true"', async (url) => {
    const auth = await token();
    const body = await expectError(
      await subscribe(auth, { url, event_types: ["*"] }, { ALLOW_LOCAL_WEBHOOKS: "false" }),
      422,
      { code: "validation_failed", source: { pointer: "/url" } },
    );
    expect(body.errors[0].detail).toMatch(/ALLOW_LOCAL_WEBHOOKS/);
    expect((await subscribe(auth, { url, event_types: ["*"] }, { ALLOW_LOCAL_WEBHOOKS: "true" })).status).toBe(201);
  });

  it("accepts at most 10 endpoints per customer: the 11th answers 409 conflict", async () => {
    const auth = await token();
    for (let i = 0; i < 10; i++) await created(auth, { url: `https://hooks.example/${i}`, event_types: ["*"] });
    const body = await expectError(
      await subscribe(auth, { url: "https://hooks.example/11", event_types: ["*"] }),
      409,
      { code: "conflict" },
    );
    expect(body.errors[0].detail).toMatch(/10/);
    expect((await expectJson(await call(ENDPOINTS, { token: auth }), 200, expect.anything())).meta.total_entries).toBe(
      10,
    );
  });

  it("holds the limit under concurrent requests: of 8 racing for the last 3 places, 3 get in", {
    timeout: 60_000,
  }, async () => {
    const auth = await token();
    for (let i = 0; i < 7; i++) await created(auth, { url: `https://hooks.example/${i}`, event_types: ["*"] });
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        subscribe(auth, { url: `https://hooks.example/race-${i}`, event_types: ["*"] }),
      ),
    );
    expect(responses.map((r) => r.status).toSorted()).toStrictEqual([201, 201, 201, 409, 409, 409, 409, 409]);
    expect((await expectJson(await call(ENDPOINTS, { token: auth }), 200, expect.anything())).meta.total_entries).toBe(
      10,
    );
  });

  it("needs webhooks:write and a customer", async () => {
    const json = { url: "https://hooks.example/in", event_types: ["*"] };
    await expectError(await subscribe(await token({ scope: "events:read" }), json), 403, {
      code: "forbidden",
      source: { header: "Authorization" },
    });
    await expectError(await subscribe(await token({ customer_id: undefined }), json), 403, {
      code: "forbidden",
      source: { header: "Authorization" },
    });
  });
});

describe("DELETE /webhook_endpoints/{id}", () => {
  it("answers 204, then 404 with the same body as for an unknown or another customer's endpoint", async () => {
    const auth = await token();
    const endpoint = await created(auth);
    const foreign = await created(await token());
    expect((await call(`${ENDPOINTS}/${endpoint.id}`, { token: auth, method: "DELETE" })).status).toBe(204);
    const again = await expectError(await call(`${ENDPOINTS}/${endpoint.id}`, { token: auth, method: "DELETE" }), 404, {
      code: "not_found",
    });
    const unknown = await expectError(
      await call(`${ENDPOINTS}/${crypto.randomUUID()}`, { token: auth, method: "DELETE" }),
      404,
      { code: "not_found" },
    );
    const theirs = await expectError(await call(`${ENDPOINTS}/${foreign.id}`, { token: auth, method: "DELETE" }), 404, {
      code: "not_found",
    });
    expect([unknown, theirs]).toStrictEqual([again, again]);
    expect((await expectJson(await call(ENDPOINTS, { token: auth }), 200, expect.anything())).data).toStrictEqual([]);
  });
});

describe("deliveries (Standard Webhooks)", () => {
  /** A customer with an endpoint of these types, and an order submitted: one event queued. */
  async function customerWithEvent(eventTypes: string[] = ["*"]) {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const endpoint = await created(auth, { url: `https://receiver.example/${customer}`, event_types: eventTypes });
    await orderIn(auth, "submitted");
    const [event] = ((await (await call("/events", { token: auth })).json()) as any).data;
    return { auth, endpoint, event, customer };
  }

  it("POSTs the event with webhook-id, webhook-timestamp and a webhook-signature standardwebhooks checks", async () => {
    const { endpoint, event } = await customerWithEvent();
    const receiver = outbound(() => new Response(null, { status: 204 }));
    const outcomes = await drain();
    expect(outcomes.map((o) => [o.body.kind, o.acked, o.retried])).toStrictEqual([
      ["event", true, undefined],
      ["delivery", true, undefined],
    ]);
    expect(receiver.requests).toHaveLength(1);
    const [delivery] = receiver.requests;
    expect(delivery).toMatchObject({
      url: endpoint.url,
      method: "POST",
      headers: { "content-type": "application/json", "webhook-id": event.id },
    });
    expect(Math.abs(Number(delivery!.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
    expect(delivery!.body).toBe(JSON.stringify(event));
    expect(new Webhook(endpoint.secret).verify(delivery!.body, delivery!.headers)).toStrictEqual(event);
    expect(() =>
      new Webhook(`whsec_${btoa("another secret of 24 bytes")}`).verify(delivery!.body, delivery!.headers),
    ).toThrow();
  });

  it("signs with an endpoint secret sealed under an old APP_SECRET kept in APP_SECRETS_PREVIOUS", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const endpoint = (
      (await (
        await call(ENDPOINTS, {
          token: auth,
          json: { url: `https://receiver.example/${customer}`, event_types: ["*"] },
          env: { APP_SECRET: "secret-a" },
        })
      ).json()) as any
    ).data[0];
    await orderIn(auth, "submitted");
    const receiver = outbound(() => new Response(null, { status: 204 }));
    const deliveries = (await drain({ APP_SECRET: "secret-b", APP_SECRETS_PREVIOUS: "secret-a" })).filter(
      (o) => o.body.kind === "delivery",
    );
    expect(deliveries.map((o) => o.acked)).toStrictEqual([true]);
    const [delivery] = receiver.requests;
    expect(new Webhook(endpoint.secret).verify(delivery!.body, delivery!.headers)).toMatchObject({
      type: "card_order.submitted",
    });
  });

  it("does not deliver, but retries, if neither APP_SECRET nor APP_SECRETS_PREVIOUS opens the secret", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    expect(
      (
        await call(ENDPOINTS, {
          token: auth,
          json: { url: `https://receiver.example/${customer}`, event_types: ["*"] },
          env: { APP_SECRET: "secret-a" },
        })
      ).status,
    ).toBe(201);
    await orderIn(auth, "submitted");
    const receiver = outbound(() => new Response(null, { status: 204 }));
    const errors = errorLines();
    const deliveries = (await drain({ APP_SECRET: "secret-b", APP_SECRETS_PREVIOUS: "secret-c" })).filter(
      (o) => o.body.kind === "delivery",
    );
    expect(deliveries.map((o) => [o.acked, o.retried])).toStrictEqual([[false, { delaySeconds: expect.any(Number) }]]);
    expect(receiver.requests).toStrictEqual([]);
    expect(errors.map((line) => JSON.parse(line).error)).toStrictEqual([
      expect.stringMatching(/opens under no APP_SECRET or APP_SECRETS_PREVIOUS/),
    ]);
  });

  it("does not sign with a secret copied from another endpoint's row: that delivery is retried, unsent", async () => {
    const auth = await token();
    const [a, b] = [
      await created(auth, { url: "https://receiver.example/a", event_types: ["*"] }),
      await created(auth, { url: "https://receiver.example/b", event_types: ["*"] }),
    ];
    await env.DB.prepare(
      "UPDATE webhook_endpoints SET encrypted_secret = " +
        "(SELECT encrypted_secret FROM webhook_endpoints WHERE id = ?1) WHERE id = ?2",
    )
      .bind(a.id, b.id)
      .run();
    await orderIn(auth, "submitted");
    const receiver = outbound(() => new Response(null, { status: 204 }));
    const errors = errorLines();
    const deliveries = (await drain()).filter((o) => o.body.kind === "delivery");
    expect(deliveries.map((o) => [(o.body as { endpointId: string }).endpointId, o.acked]).toSorted()).toStrictEqual(
      [
        [a.id, true],
        [b.id, false],
      ].toSorted(),
    );
    expect(receiver.requests.map((r) => r.url)).toStrictEqual([a.url]);
    expect(errors.map((line) => JSON.parse(line).error)).toStrictEqual([
      expect.stringMatching(/^UnreadableSealedValue: .* sealed for another row$/),
    ]);
  });

  it("signs with a secret sealed before sealing named the endpoint (v1), as older endpoints hold it", async () => {
    const { endpoint, event } = await customerWithEvent();
    await env.DB.prepare("UPDATE webhook_endpoints SET encrypted_secret = ? WHERE id = ?")
      .bind(await sealedForNoRow("webhook-secrets", endpoint.secret), endpoint.id)
      .run();
    const receiver = outbound(() => new Response(null, { status: 204 }));
    await drain();
    const [delivery] = receiver.requests;
    expect(new Webhook(endpoint.secret).verify(delivery!.body, delivery!.headers)).toStrictEqual(event);
  });

  it("delivers only to the customer's endpoints subscribed to the event's type", async () => {
    const { auth } = await customerWithEvent(["invoice.paid"]);
    await created(auth, { url: "https://receiver.example/all", event_types: ["*"] });
    await created(auth, { url: "https://receiver.example/submitted", event_types: ["card_order.submitted"] });
    await created(await token(), { url: "https://receiver.example/stranger", event_types: ["*"] });
    const receiver = outbound(() => new Response("ok"));
    await drain();
    expect(receiver.requests.map((r) => r.url).toSorted()).toStrictEqual([
      "https://receiver.example/all",
      "https://receiver.example/submitted",
    ]);
  });

  it("retries with growing delays (the first within 60 s); one failing endpoint delays no other", async () => {
    const { auth } = await customerWithEvent();
    await created(auth, { url: "https://healthy.example/in", event_types: ["*"] });
    const receiver = outbound(
      (request) => new Response(null, { status: request.url.startsWith("https://healthy.example") ? 200 : 503 }),
    );
    const deliveries = (await drain({ WEBHOOK_RETRY_BASE_SECONDS: "30" })).filter((o) => o.body.kind === "delivery");
    expect(receiver.requests).toHaveLength(2);
    expect(deliveries.map((o) => [o.acked, o.retried]).toSorted()).toStrictEqual([
      [false, { delaySeconds: 30 }],
      [true, undefined],
    ]);
    expect(
      [1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => retryDelaySeconds(attempt, { WEBHOOK_RETRY_BASE_SECONDS: undefined })),
    ).toStrictEqual([30, 120, 480, 1920, 7680, 30720, 43200, 43200]);
  });

  it.each([
    [
      "a redirect (not followed)",
      () => new Response(null, { status: 302, headers: { Location: "http://127.0.0.1/" } }),
    ],
    ["a 4xx", () => new Response(null, { status: 410 })],
    ["a network error", () => Promise.reject(new TypeError("Network connection lost."))],
  ])("treats %s as a failed attempt, to retry", async (_, answer) => {
    await customerWithEvent();
    const receiver = outbound(answer as () => Response);
    const deliveries = (await drain()).filter((o) => o.body.kind === "delivery");
    expect(deliveries.map((o) => [o.acked, o.retried])).toStrictEqual([[false, { delaySeconds: 0 }]]);
    expect(receiver.requests).toHaveLength(1);
  });

  it("gives an attempt 2.5 s on the events queue, then the slow lane gives it 10 s and retries it", async () => {
    const { endpoint, event, customer } = await customerWithEvent();
    // The time passes at once: the signal the Worker asks for is aborted as its timeout would be.
    const timeouts = vi.spyOn(AbortSignal, "timeout").mockImplementation(() => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")));
      return controller.signal;
    });
    const receiver = outbound(
      (request) =>
        new Promise((_, reject) => {
          if (request.signal.aborted) reject(request.signal.reason);
          else request.signal.addEventListener("abort", () => reject(request.signal.reason));
        }),
    );
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
    const deliveries = (await drain()).filter((o) => o.body.kind === "delivery");
    expect(timeouts.mock.calls).toStrictEqual([[2_500], [10_000]]);
    expect(receiver.requests).toHaveLength(2);
    expect(
      deliveries.map((o) => [o.queue, o.acked, o.retried, (o.body as { priorAttempts?: number }).priorAttempts]),
    ).toStrictEqual([
      ["voucher-billing-events", true, undefined, undefined],
      ["voucher-billing-deliveries-slow", false, { delaySeconds: 0 }, 0],
    ]);
    const logged = lines.map((line) => JSON.parse(line)).filter((line) => line.job === "webhook_delivery");
    expect(logged.map((line) => [line.lane, line.status])).toStrictEqual([
      ["fast", "timeout_to_slow_lane"],
      ["slow", "timeout"],
    ]);

    // Its next delivery goes to the slow lane without an attempt on the events queue, whether it was
    // queued there (a retry) or is fanned out anew.
    queued.messages.push({ kind: "delivery", endpointId: endpoint.id, event });
    const again = await drain();
    expect(again.map((o) => [o.queue, o.acked, o.retried])).toStrictEqual([
      ["voucher-billing-events", true, undefined],
      ["voucher-billing-deliveries-slow", false, { delaySeconds: 0 }],
    ]);
    queued.messages.push({ kind: "event", customerId: customer, event });
    const fannedOut = await drain();
    expect(fannedOut.map((o) => [o.queue, o.body.kind, o.acked, o.retried])).toStrictEqual([
      ["voucher-billing-events", "event", true, undefined],
      ["voucher-billing-deliveries-slow", "delivery", false, { delaySeconds: 0 }],
    ]);
    expect(timeouts.mock.calls.slice(2)).toStrictEqual([[10_000], [10_000]]);
  });

  it("holds up no other customer: the other is delivered while a silent endpoint's 2.5 s run", async () => {
    const silent = await customerWithEvent();
    const healthy = await customerWithEvent();
    // The time passes when the test says: the fast lane's 2.5 s are up once the healthy endpoint has
    // had its delivery, which a batch that waited on the silent one would never get to.
    let past = false;
    const running: AbortController[] = [];
    const timeUp = (controller: AbortController) =>
      controller.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError"));
    const timeouts = vi.spyOn(AbortSignal, "timeout").mockImplementation((ms) => {
      const controller = new AbortController();
      if (ms === 2_500) past ? setTimeout(() => timeUp(controller)) : running.push(controller);
      return controller.signal;
    });
    const seen: string[] = [];
    let silentCalls = 0;
    outbound((request) => {
      if (request.url === healthy.endpoint.url) {
        seen.push("healthy delivered");
        past = true;
        for (const controller of running) timeUp(controller);
        return new Response(null, { status: 204 });
      }
      // Silent on the events queue; on the slow lane it answers.
      if (++silentCalls === 2) return (seen.push("silent on the slow lane"), new Response(null, { status: 204 }));
      return new Promise((_, reject) =>
        request.signal.addEventListener("abort", () => (seen.push("silent timed out"), reject(request.signal.reason))),
      );
    });
    const deliveries = (await drain()).filter((o) => o.body.kind === "delivery");
    const endpointOf = (o: { body: unknown }) => (o.body as { endpointId: string }).endpointId;
    expect(deliveries.map((o) => [o.queue, endpointOf(o), o.acked, o.retried]).toSorted()).toStrictEqual(
      [
        ["voucher-billing-events", silent.endpoint.id, true, undefined],
        ["voucher-billing-events", healthy.endpoint.id, true, undefined],
        ["voucher-billing-deliveries-slow", silent.endpoint.id, true, undefined],
      ].toSorted(),
    );
    expect(seen).toStrictEqual(["healthy delivered", "silent timed out", "silent on the slow lane"]);
    expect(timeouts.mock.calls.toSorted()).toStrictEqual([[10_000], [2_500], [2_500]].toSorted());
  });

  it("never sends to a non-public host while local webhooks are off, though saved when they were on", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const saved = await subscribe(
      auth,
      { url: "https://[::ffff:127.0.0.1]:9351/hook", event_types: ["*"] },
      { ALLOW_LOCAL_WEBHOOKS: "true" },
    );
    expect(saved.status).toBe(201);
    await orderIn(auth, "submitted");
    const receiver = outbound(() => new Response(null, { status: 204 }));
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
    const deliveries = (await drain({ ALLOW_LOCAL_WEBHOOKS: "false" })).filter((o) => o.body.kind === "delivery");
    expect(deliveries.map((o) => [o.acked, o.retried])).toStrictEqual([[true, undefined]]);
    expect(receiver.requests).toStrictEqual([]);
    expect(
      lines
        .map((line) => JSON.parse(line))
        .filter((line) => line.job === "webhook_delivery")
        .map((line) => line.status),
    ).toStrictEqual(["host_refused"]);
  });

  it("counts the attempts before the slow lane: the ninth in all is the last, logged as a dead letter", async () => {
    const { endpoint, event } = await customerWithEvent();
    queued.take();
    outbound(() => new Response(null, { status: 500 }));
    const errors: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: unknown) => void errors.push(String(line)));
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    slowQueued.messages.push({ kind: "delivery", endpointId: endpoint.id, event, priorAttempts: 7 });
    expect((await drain()).map((o) => [o.queue, o.acked, o.retried])).toStrictEqual([
      ["voucher-billing-deliveries-slow", false, { delaySeconds: 0 }],
    ]);
    slowQueued.messages.push({ kind: "delivery", endpointId: endpoint.id, event, priorAttempts: 8 });
    expect((await drain()).map((o) => [o.queue, o.acked, o.retried])).toStrictEqual([
      ["voucher-billing-deliveries-slow", true, undefined],
    ]);
    expect(errors.map((line) => JSON.parse(line))).toStrictEqual([
      {
        level: "error",
        job: "dead_letter",
        kind: "delivery",
        event_id: event.id,
        endpoint_id: endpoint.id,
        attempts: 9,
      },
    ]);
  });

  it("logs one JSON line per attempt (event, endpoint, attempt, status, duration), never the secret", async () => {
    const { endpoint, event } = await customerWithEvent();
    outbound(() => new Response(null, { status: 500 }));
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
    await drain();
    const logged = lines.map((line) => JSON.parse(line)).filter((line) => line.job === "webhook_delivery");
    expect(logged).toStrictEqual([
      {
        job: "webhook_delivery",
        event_id: event.id,
        endpoint_id: endpoint.id,
        attempt: 1,
        lane: "fast",
        status: 500,
        duration_ms: expect.any(Number),
      },
    ]);
    expect(lines.join("\n")).not.toContain(endpoint.secret.slice("whsec_".length));
  });

  it("makes no further attempt once the endpoint is deleted, also not the retry of an earlier event", async () => {
    const { auth, endpoint } = await customerWithEvent();
    outbound(() => new Response(null, { status: 500 }));
    const [, failed] = await drain();
    expect(failed).toMatchObject({ body: { kind: "delivery" }, acked: false });
    expect((await call(`${ENDPOINTS}/${endpoint.id}`, { token: auth, method: "DELETE" })).status).toBe(204);
    const receiver = outbound(() => new Response("ok"));
    queued.messages.push(failed!.body);
    expect((await drain()).map((o) => [o.body.kind, o.acked])).toStrictEqual([["delivery", true]]);
    expect(receiver.requests).toStrictEqual([]);
  });

  it("retries a failing delivery 8 times, 30 s to 12 h apart, then the dead-letter queue logs it", async () => {
    // The queue's part played here, its time not waited for (wrangler.jobs.toml: max_retries 8, then the
    // dead-letter queue): each retry comes back as the same message's next attempt.
    const { endpoint } = await customerWithEvent(["card_order.submitted"]);
    const receiver = outbound(() => new Response(null, { status: 500 }));
    const errors = errorLines();
    const deployed = { WEBHOOK_RETRY_BASE_SECONDS: undefined };
    const [first] = (await drain(deployed)).filter((o) => o.body.kind === "delivery");
    const retries = [first!.retried];
    for (let attempts = 2; attempts <= MAX_ATTEMPTS; attempts++) {
      const [again] = await consume("voucher-billing-events", [first!.body], { attempts, bindings: deployed });
      expect(again!.acked).toBe(false);
      retries.push(again!.retried);
    }
    expect(retries.map((retry) => retry?.delaySeconds)).toStrictEqual([
      30, 120, 480, 1920, 7680, 30720, 43200, 43200, 43200,
    ]);
    expect(receiver.requests.map((request) => request.url)).toStrictEqual(Array(MAX_ATTEMPTS).fill(endpoint.url));
    expect(errors).toStrictEqual([]);
    const [dead] = await consume("voucher-billing-events-dlq", [first!.body], { attempts: 1 });
    expect(dead!.acked).toBe(true);
    expect(errors.map((line) => JSON.parse(line))).toStrictEqual([
      {
        level: "error",
        job: "dead_letter",
        kind: "delivery",
        event_id: (first!.body as { event: { id: string } }).event.id,
        endpoint_id: endpoint.id,
        attempts: expect.any(Number),
      },
    ]);
    expect(receiver.requests).toHaveLength(MAX_ATTEMPTS);
  });
});

/** A collection on the earliest date of what `auth`'s customer has due. */
async function collect(auth: string): Promise<void> {
  const response = await call("/direct_debit_collections", { token: auth, json: { collection_date: earliestDate() } });
  expect(response.status).toBe(201);
}

describe("the OpenAPI document's webhooks", () => {
  const document = JSON.parse(JSON.stringify(openApiDocument(endpoints)));

  it("describe every delivery a receiver gets: one per event type, its headers, its resource fields", async () => {
    const auth = await token();
    await created(auth);
    const profile = await call("/customers/me/billing_profile", {
      token: auth,
      method: "PUT",
      json: newBillingProfile,
    });
    expect(profile.status).toBe(200);
    const invoiced = await orderIn(auth, "submitted");
    const invoice = await createInvoice(auth, invoiced.id);
    expect((await call(`/invoices/${invoice.id}/pay`, { token: auth, method: "POST" })).status).toBe(200);
    for (const action of ["start_production", "deliver"])
      expect((await call(`/card_orders/${invoiced.id}/${action}`, { token: auth, method: "POST" })).status).toBe(200);
    const cancelled = await orderIn(auth, "submitted");
    await createInvoice(auth, cancelled.id);
    expect((await call(`/card_orders/${cancelled.id}/cancel`, { token: auth, method: "POST" })).status).toBe(200);
    // A direct debit collected, settled and returned (docs/api.md part 16): payment.returned.
    const debited = await collectableInvoice(auth);
    await collect(auth);
    for (const entry of [
      credit(debited.gross_amount, { endToEndId: debited.number }),
      {
        ...credit(debited.gross_amount, { endToEndId: debited.number, returnReason: "AM04" }),
        creditDebit: "debit" as const,
      },
    ])
      expect((await uploadFile(auth, statementFile([entry]))).status).toBe(202);
    await drainStatements();

    const receiver = outbound(() => new Response(null, { status: 204 }));
    await drain();
    // Document e-mails (docs/api.md part 17): one refused for good (failed), the others sent; then Email
    // Service reports one delivered and one bounced.
    const customer = customerOfToken(auth);
    const pending = await env.DB.prepare(
      "SELECT id FROM invoice_deliveries WHERE customer_id = ? AND state = 'pending'",
    )
      .bind(customer)
      .all<{ id: string }>();
    deliveriesQueued.take();
    deliveriesQueued.messages.push(...pending.results.map(({ id }) => ({ deliveryId: id })));
    await drainDeliveries({ EMAIL: new RecordingEmail().failWith("E_RECIPIENT_SUPPRESSED").binding });
    const sent = await env.DB.prepare(
      "SELECT message_id FROM invoice_deliveries WHERE customer_id = ? AND state = 'sent'",
    )
      .bind(customer)
      .all<{ message_id: string }>();
    const [first, second] = sent.results.map((row) => row.message_id);
    await feedEmailEvents([
      emailEvent("delivered", first!),
      emailEvent("bounced", second!, { bounce: { type: "hard" } }),
    ]);
    await drain();
    // Dunning (docs/api.md part 18): an invoice chased to its end, held and released on the way.
    const chased = await createInvoice(auth, (await orderIn(auth, "submitted")).id);
    for (const days of [7, 21]) await runDunning(addDays(chased.due_on, days));
    const office = await backOffice();
    for (const json of [{ hold: true, reason: "Disputed." }, { hold: false }])
      expect((await call(`/invoices/${chased.id}/dunning`, { token: office, method: "PUT", json })).status).toBe(200);
    for (const days of [40, 80]) await runDunning(addDays(chased.due_on, days));
    deliveriesQueued.take();
    await drain();
    // A type the story does not make (a new resource's, say) comes from the examples of the routes that
    // write (test/support/examples.ts), each on its customer subscribed before its request, until none is left.
    const missing = () =>
      EVENT_TYPES.filter((type) => !receiver.requests.some((r) => JSON.parse(r.body).type === type));
    for (const { spec, example } of routeExamples())
      if (spec.method !== "get" && missing().length > 0) {
        const request = await example.prepare();
        // A token that may not subscribe (a back-office one) would receive nothing: its example is skipped.
        if ((await subscribe(request.auth, { url: "https://hooks.example/in", event_types: ["*"] })).status !== 201)
          continue;
        expect((await send(requestOf(request))).status, spec.operationId).toBe(example.status);
        await drain();
      }
    const received = receiver.requests.map((r) => ({ headers: r.headers, event: JSON.parse(r.body) }));
    expect(new Set(received.map((r) => r.event.type))).toStrictEqual(new Set(EVENT_TYPES));
    expect(Object.keys(document.webhooks).sort()).toStrictEqual([...EVENT_TYPES].sort());

    for (const { headers, event } of received) {
      const { post } = document.webhooks[event.type];
      const declared = post.parameters.filter((p: any) => p.in === "header").map((p: any) => p.name);
      expect(
        declared.filter((name: string) => !(name in headers)),
        `${event.type}: declared headers not sent`,
      ).toStrictEqual([]);
      for (const name of declared)
        expect(headers[name]).toMatch(
          new RegExp(post.parameters.find((p: any) => p.name === name).schema.pattern ?? "."),
        );
      const schema = post.requestBody.content["application/json"].schema;
      expect(Object.keys(event)).toStrictEqual(Object.keys(schema.properties));
      expect(schema.required).toStrictEqual(Object.keys(event));
      expect(schema.properties.type.const).toBe(event.type);
      const resource = document.components.schemas[schema.properties.data.$ref.split("/").pop()];
      expect(Object.keys(event.data), `${event.type}: data is the ${schema.properties.data.$ref}`).toStrictEqual(
        Object.keys(resource.properties),
      );
    }
  });
});
