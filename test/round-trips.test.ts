import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { endpoints } from "../src/app";
import {
  addEntry,
  BASE,
  call,
  createInvoice,
  newBillingProfile,
  orderIn,
  send,
  token,
  unique,
  withBillingProfile,
} from "./support/api";
import { FaultyD1, type CallRecord } from "./support/faulty-d1";

// Issue 11: at the edge, latency is sequential round trips to D1. Every read endpoint makes exactly
// one; every write at most two (one read batch carrying the Idempotency-Key lookup, one write
// batch), with or without a key. The bench's latency scenario measures the same thing in time.

interface Case {
  /** The request, on fresh preconditions. */
  prepare: () => Promise<{ path: string; method: string; auth: string; json?: object }>;
  status: number;
}

const withOrder =
  (state: Parameters<typeof orderIn>[1], request: (id: string) => string, method = "POST") =>
  async () => {
    const auth = await token();
    const order = await orderIn(auth, state);
    return { auth, method, path: request(order.id) };
  };

const withInvoice = (action: string) => async () => {
  const auth = await token();
  const invoice = await createInvoice(auth, (await orderIn(auth, "submitted")).id);
  return { auth, method: "POST", path: `/invoices/${invoice.id}/${action}` };
};

// A list with a row in it, so that a per-row lookup would show as a round trip of its own.
const listAfter = (path: string, setup: (auth: string) => Promise<unknown>) => async () => {
  const auth = await token();
  await setup(auth);
  return { auth, method: "GET", path };
};
const invoiced = async (auth: string) => createInvoice(auth, (await orderIn(auth, "submitted")).id);
const device = async (auth: string) =>
  expect(
    (
      await call("/voucher_owners/me/notification_tokens", {
        token: auth,
        method: "PUT",
        json: { value: unique("fcm"), device_identifier: "phone" },
      })
    ).status,
  ).toBe(204);
const endpoint = async (auth: string) =>
  expect(
    (await call("/webhook_endpoints", { token: auth, json: { url: "https://hooks.example/in", event_types: ["*"] } }))
      .status,
  ).toBe(201);

// One case per operation; the test below fails when an operation has none.
const CASES: Record<string, Case> = {
  createCardOrder: {
    status: 201,
    prepare: async () => ({
      auth: await token(),
      method: "POST",
      path: "/card_orders",
      json: { voucher_category: "meal", payment_method: "direct_debit" },
    }),
  },
  listCardOrders: { status: 200, prepare: listAfter("/card_orders?state=draft", (auth) => orderIn(auth, "draft")) },
  getCardOrder: { status: 200, prepare: withOrder("draft", (id) => `/card_orders/${id}`, "GET") },
  submitCardOrder: { status: 200, prepare: withOrder("draft", (id) => `/card_orders/${id}/submit`) },
  cancelCardOrder: { status: 200, prepare: withOrder("submitted", (id) => `/card_orders/${id}/cancel`) },
  startProductionCardOrder: {
    status: 200,
    prepare: withOrder("submitted", (id) => `/card_orders/${id}/start_production`),
  },
  deliverCardOrder: { status: 200, prepare: withOrder("in_production", (id) => `/card_orders/${id}/deliver`) },
  createCardOrderEntry: {
    status: 201,
    prepare: async () => {
      const { auth, method, path } = await withOrder("draft", (id) => `/card_orders/${id}/entries`)();
      return {
        auth,
        method,
        path,
        json: { voucher_owner_id: "owner-2", card_holder_name: "Grace Hopper", amount: "12.34" },
      };
    },
  },
  listCardOrderEntries: { status: 200, prepare: withOrder("draft", (id) => `/card_orders/${id}/entries`, "GET") },
  deleteCardOrderEntry: {
    status: 204,
    prepare: async () => {
      const auth = await token();
      const order = await orderIn(auth, "draft");
      const entry = await addEntry(auth, order.id);
      return { auth, method: "DELETE", path: `/card_orders/${order.id}/entries/${entry.id}` };
    },
  },
  createInvoice: {
    status: 201,
    prepare: async () => {
      const auth = await token();
      return { auth, method: "POST", path: "/invoices", json: { order_id: (await orderIn(auth, "submitted")).id } };
    },
  },
  listInvoices: { status: 200, prepare: listAfter("/invoices?state=open", invoiced) },
  getInvoice: {
    status: 200,
    prepare: async () => {
      const { auth, path } = await withInvoice("")();
      return { auth, method: "GET", path: path.slice(0, -1) };
    },
  },
  payInvoice: { status: 200, prepare: withInvoice("pay") },
  cancelInvoice: { status: 200, prepare: withInvoice("cancel") },
  registerNotificationToken: {
    status: 204,
    prepare: async () => ({
      auth: await token(),
      method: "PUT",
      path: "/voucher_owners/me/notification_tokens",
      json: { value: unique("fcm"), device_identifier: "phone" },
    }),
  },
  listNotificationTokens: { status: 200, prepare: listAfter("/voucher_owners/me/notification_tokens", device) },
  deleteNotificationToken: {
    status: 204,
    prepare: async () => {
      const auth = await token();
      await device(auth);
      return { auth, method: "DELETE", path: "/voucher_owners/me/notification_tokens/phone" };
    },
  },
  listEvents: { status: 200, prepare: listAfter("/events?type=invoice.created", invoiced) },
  createWebhookEndpoint: {
    status: 201,
    prepare: async () => ({
      auth: await token(),
      method: "POST",
      path: "/webhook_endpoints",
      json: { url: "https://hooks.example/in", event_types: ["*"] },
    }),
  },
  listWebhookEndpoints: { status: 200, prepare: listAfter("/webhook_endpoints", endpoint) },
  putBillingProfile: {
    status: 200,
    prepare: async () => ({
      auth: await token(),
      method: "PUT",
      path: "/customers/me/billing_profile",
      json: newBillingProfile,
    }),
  },
  getBillingProfile: {
    status: 200,
    prepare: async () => {
      const auth = await token();
      await withBillingProfile(auth);
      return { auth, method: "GET", path: "/customers/me/billing_profile" };
    },
  },
  listInvoiceLines: {
    status: 200,
    prepare: async () => {
      const { auth, path } = await withInvoice("lines")();
      return { auth, method: "GET", path };
    },
  },
  getInvoiceDocument: {
    status: 200,
    prepare: async () => {
      const { auth, path } = await withInvoice("document?format=cii")();
      return { auth, method: "GET", path };
    },
  },
  getInvoiceCreditNote: {
    status: 200,
    prepare: async () => {
      const { auth, path } = await withInvoice("cancel")();
      expect((await call(path, { token: auth, method: "POST" })).status).toBe(200);
      return { auth, method: "GET", path: path.replace(/cancel$/, "credit_note") };
    },
  },
  deleteWebhookEndpoint: {
    status: 204,
    prepare: async () => {
      const auth = await token();
      const created = await call("/webhook_endpoints", {
        token: auth,
        json: { url: "https://hooks.example/in", event_types: ["*"] },
      });
      return { auth, method: "DELETE", path: `/webhook_endpoints/${((await created.json()) as any).data[0].id}` };
    },
  },
};

// Served without the database.
const NO_DATABASE = new Set(["health", "openApi", "docs"]);

const isWrite = (call: CallRecord) =>
  call.sql.some((statement) => /^\s*(insert|update|delete|replace)\b/i.test(statement));

async function measure(testCase: Case, idempotencyKey?: string) {
  const { auth, method, path, json } = await testCase.prepare();
  const headers: Record<string, string> = { Authorization: `Bearer ${auth}` };
  if (json) headers["Content-Type"] = "application/json";
  if (idempotencyKey) headers["Idempotency-Key"] = idempotencyKey;
  const db = new FaultyD1(env.DB);
  const response = await send(new Request(BASE + path, { method, headers, body: json && JSON.stringify(json) }), {
    DB: db.binding,
  });
  const text = await response.text();
  expect(response.status, `${method} ${path}: ${text}`).toBe(testCase.status);
  const isJson = response.headers.get("Content-Type")?.startsWith("application/json");
  return { calls: db.calls, method, body: isJson ? JSON.parse(text) : text };
}

describe("round trips to D1 per request", () => {
  it("every operation of the API has a case here", () => {
    const operations = endpoints.map(({ spec }) => spec.operationId).filter((id) => !NO_DATABASE.has(id));
    expect(operations.sort()).toStrictEqual(Object.keys(CASES).sort());
  });

  const reads = Object.entries(CASES).filter(([id]) => /^(list|get)/.test(id));
  const writes = Object.entries(CASES).filter(([id]) => !/^(list|get)/.test(id));

  it.each(reads)("%s: exactly one round trip", async (id, testCase) => {
    const { calls, body } = await measure(testCase);
    expect(calls.map(isWrite)).toStrictEqual([false]);
    if (id.startsWith("list")) expect(body.data.length, `${id} lists a row`).toBeGreaterThan(0);
  });

  it.each(
    writes.flatMap(
      ([id, testCase]) =>
        [
          [id, "without an Idempotency-Key", testCase, false],
          [id, "with an Idempotency-Key", testCase, true],
        ] as const,
    ),
  )("%s %s: one read batch at most, then one write batch", async (_, __, testCase, keyed) => {
    const { calls, method } = await measure(testCase, keyed ? unique("key") : undefined);
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(calls.length).toBeLessThanOrEqual(2);
    // The last call writes, in one batch; the one before it (if any) only reads.
    expect(calls.map(isWrite)).toStrictEqual(calls.map((_, i) => i === calls.length - 1));
    expect(calls.at(-1)!.kind).toBe("batch");
    // With a key, a POST's lookup rides in the first call, never in a call of its own (PUT and
    // DELETE are idempotent by themselves: docs/api.md part 7 keys only POSTs).
    if (keyed && method === "POST")
      expect(calls[0]!.sql.some((sql) => sql.includes('"idempotency_keys"') && /^\s*select/i.test(sql))).toBe(true);
  });

  it("a keyed repeat is answered from the stored response in one round trip", async () => {
    const testCase = CASES.createCardOrder!;
    const { auth, method, path, json } = await testCase.prepare();
    const key = unique("key");
    const request = () =>
      new Request(BASE + path, {
        method,
        body: JSON.stringify(json),
        headers: { Authorization: `Bearer ${auth}`, "Content-Type": "application/json", "Idempotency-Key": key },
      });
    expect((await send(request())).status).toBe(201);
    const db = new FaultyD1(env.DB);
    const replay = await send(request(), { DB: db.binding });
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(db.count).toBe(1);
  });

  it("following a list's next cursor is one round trip too", async () => {
    const auth = await token();
    for (let i = 0; i < 3; i++)
      await call("/card_orders", { token: auth, json: { voucher_category: "gift", payment_method: "bank_transfer" } });
    const first: any = await (await call("/card_orders?page_size=1", { token: auth })).json();
    const db = new FaultyD1(env.DB);
    const next = await send(new Request(first.links.next, { headers: { Authorization: `Bearer ${auth}` } }), {
      DB: db.binding,
    });
    expect(next.status).toBe(200);
    expect(first.links.next).toContain("cursor=");
    expect(db.count).toBe(1);
  });
});
