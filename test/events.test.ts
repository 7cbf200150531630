import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import worker from "../src/jobs/index";
import {
  BASE,
  call,
  createCardOrder,
  createInvoice,
  expectError,
  expectJson,
  ISO_MS,
  orderIn,
  token,
  unique,
  UUID,
  listLink,
  post,
} from "./support/api";
import { FaultyD1 } from "./support/faulty-d1";
import { drain, queued } from "./support/queue";

// docs/api.md part 11: every change a client may react to is an event, stored in the change's batch,
// listed by GET /events and handed to the queue; the Cron Trigger sends what the queue never got.

async function data(path: string, auth: string): Promise<any> {
  const response = await call(path, { token: auth });
  expect(response.status).toBe(200);
  return ((await response.json()) as any).data;
}

/** The caller's events, newest first, as GET /events shows them. */
const eventsOf = (auth: string, query = "") => data(`/events${query}`, auth);

async function storedEvents(customer: string) {
  const { results } = await env.DB.prepare(
    "SELECT id, type, created_at, dispatched_at FROM events WHERE customer_id = ? ORDER BY created_at, id",
  )
    .bind(customer)
    .all();
  return results as { id: string; type: string; created_at: string; dispatched_at: string | null }[];
}

beforeEach(() => void queued.take());

describe("the outbox: each change writes its event, the resource as GET then shows it", () => {
  it("card order transitions and the invoices they make or cancel, in the order they happen", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const order = await createCardOrder(auth);
    expect(await eventsOf(auth)).toStrictEqual([]); // creating a draft and adding entries are no events

    await call(`/card_orders/${order.id}/entries`, {
      token: auth,
      json: { voucher_owner_id: "o", card_holder_name: "Ada", amount: "10.00" },
    });
    const submitted = await data(`/card_orders/${order.id}`, auth)
      .then(() => post(`/card_orders/${order.id}/submit`, auth))
      .then((r) => r.json() as Promise<any>);
    const [submittedEvent] = await eventsOf(auth);
    expect(submittedEvent).toStrictEqual({
      id: expect.stringMatching(UUID),
      type: "card_order.submitted",
      created_at: expect.stringMatching(ISO_MS),
      data: submitted.data,
    });

    const invoice = await createInvoice(auth, order.id);
    expect((await eventsOf(auth))[0]).toMatchObject({ type: "invoice.created", data: invoice });

    const producing = ((await (await post(`/card_orders/${order.id}/start_production`, auth)).json()) as any).data;
    const production = await data(`/invoices/${producing.production_invoice.id}`, auth);
    const [created, started] = await eventsOf(auth);
    // The order's own event first, then the invoice it made, a millisecond later: newest first, the invoice is on top.
    expect(started).toMatchObject({ type: "card_order.production_started", data: producing });
    expect(created).toMatchObject({ type: "invoice.created", data: production });
    expect(Date.parse(created.created_at) - Date.parse(started.created_at)).toBeGreaterThanOrEqual(1);
    expect(production.number).toMatch(/^INV-\d{4}-\d{6}$/); // filled in by the batch, in the event too

    const paid = ((await (await post(`/invoices/${invoice.id}/pay`, auth)).json()) as any).data;
    // pay records a manual payment (docs/api.md part 15): its event comes before the invoice's.
    const [payment] = ((await (await call(`/invoices/${invoice.id}/payments`, { token: auth })).json()) as any).data;
    const delivered = ((await (await post(`/card_orders/${order.id}/deliver`, auth)).json()) as any).data;
    const shipping = await data(`/invoices/${delivered.shipping_invoice.id}`, auth);
    const cancelled = ((await (await post(`/invoices/${shipping.id}/cancel`, auth)).json()) as any).data;

    // Earlier events keep the resource as it was then: the voucher invoice was paid after it was created.
    expect((await eventsOf(auth)).map((event: any) => [event.type, event.data])).toStrictEqual([
      ["invoice.cancelled", cancelled],
      [
        "invoice.created",
        {
          ...shipping,
          state: "open",
          updated_at: shipping.created_at,
          cancelled_at: null,
          cancellation_number: "",
          orders: [{ ...shipping.orders[0], state: "delivered" }],
        },
      ],
      ["card_order.delivered", delivered],
      ["invoice.paid", { ...paid, orders: [{ ...paid.orders[0], state: "in_production" }] }],
      ["payment.received", { ...payment, method: "manual", bank_transaction_id: null, amount: invoice.gross_amount }],
      ["invoice.created", production],
      ["card_order.production_started", producing],
      ["invoice.created", invoice],
      ["card_order.submitted", submitted.data],
    ]);
    expect(cancelled.cancellation_number).toMatch(/^CN-\d{4}-\d{6}$/);
    expect((await storedEvents(customer)).map((event) => event.type)).toHaveLength(9);
  });

  it("an order's cancel writes card_order.cancelled, then invoice.cancelled for its open invoice", async () => {
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    await createInvoice(auth, order.id);
    const cancelledOrder = ((await (await post(`/card_orders/${order.id}/cancel`, auth)).json()) as any).data;
    const invoice = await data(`/invoices/${cancelledOrder.invoice.id}`, auth);
    const [invoiceEvent, orderEvent] = await eventsOf(auth);
    expect(orderEvent).toMatchObject({ type: "card_order.cancelled", data: cancelledOrder });
    expect(invoiceEvent).toMatchObject({ type: "invoice.cancelled", data: invoice });
    expect(invoice.cancellation_number).toMatch(/^CN-/);
  });

  it("a refused or failed request writes no event", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const order = await orderIn(auth, "submitted");
    const before = await storedEvents(customer);
    await expectError(await post(`/card_orders/${order.id}/submit`, auth), 409, { code: "invalid_state" });
    await expectError(await post(`/card_orders/${order.id}/deliver`, auth), 409, { code: "invalid_state" });
    await expectError(await call("/invoices", { token: auth, json: { order_id: crypto.randomUUID() } }), 422, {
      code: "validation_failed",
      source: { pointer: "/order_id" },
    });
    expect(await storedEvents(customer)).toStrictEqual(before);
  });
});

describe("handing events to the queue", () => {
  it("each write's events go to the queue after it commits, as GET /events shows them", async () => {
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    queued.take();
    await post(`/card_orders/${order.id}/start_production`, auth);
    const [created, started] = await eventsOf(auth);
    expect(queued.take()).toStrictEqual([
      { kind: "event", customerId: started.data.customer, event: started },
      { kind: "event", customerId: started.data.customer, event: created },
    ]);
  });

  it("the consumer marks them dispatched, so that the Cron Trigger leaves them alone", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    await orderIn(auth, "submitted");
    expect((await storedEvents(customer)).map((event) => event.dispatched_at)).toStrictEqual([null]);
    const outcomes = await drain();
    expect(outcomes.map((outcome) => [outcome.body.kind, outcome.acked])).toStrictEqual([["event", true]]);
    expect((await storedEvents(customer))[0]!.dispatched_at).toMatch(ISO_MS);
  });
});

describe("a write whose answer was lost (docs/api.md part 11: the first attempt within 30 s)", () => {
  afterEach(() => vi.restoreAllMocks());

  /** Submits a draft with its write batch (its last D1 call) failing `mode`. */
  async function submitFailing(mode: "before" | "after") {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const auth = await token();
    // A clean run of the same request counts its calls.
    const probe = new FaultyD1(env.DB);
    expect(
      (
        await call(`/card_orders/${(await orderIn(auth, "draft")).id}/submit`, {
          token: auth,
          method: "POST",
          env: { DB: probe.binding },
        })
      ).status,
    ).toBe(200);

    const order = await orderIn(auth, "draft");
    queued.take();
    const faulty = new FaultyD1(env.DB).failCall(probe.count, mode);
    await expectError(
      await call(`/card_orders/${order.id}/submit`, { token: auth, method: "POST", env: { DB: faulty.binding } }),
      503,
      { code: "unavailable", source: {} },
    );
    expect(faulty.calls[probe.count - 1]).toMatchObject({ kind: "batch", failed: true });
    const sent = queued.take();
    const events = (await eventsOf(auth, "?type=card_order.submitted")).filter(
      (event: any) => event.data.id === order.id,
    );
    return { sent, events };
  }

  it("committed: its event goes to the queue at once, as GET /events shows, not a minute later by Cron", async () => {
    const { sent, events } = await submitFailing("after");
    expect(events).toHaveLength(1);
    expect(sent).toStrictEqual([{ kind: "event", customerId: events[0].data.customer, event: events[0] }]);
  });

  it("not committed: no event stored, none queued", async () => {
    const { sent, events } = await submitFailing("before");
    expect(events).toStrictEqual([]);
    expect(sent).toStrictEqual([]);
  });
});

describe("the consumer, when its own D1 call fails", () => {
  afterEach(() => vi.restoreAllMocks());

  it("retries the fan-out after 2 s (then 8, 32, ...), not the queue's default 30 s", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await orderIn(await token(), "submitted");
    const outcomes = await drain({ DB: new FaultyD1(env.DB).failCall(1).binding });
    expect(outcomes.map((o) => [o.body.kind, o.acked, o.retried])).toStrictEqual([
      ["event", false, { delaySeconds: 2 }],
    ]);
  });
});

describe("the Cron Trigger sends again what the queue never got (at least once)", () => {
  afterEach(() => vi.restoreAllMocks());

  async function cron(at: number, cron = "* * * * *") {
    const ctx = createExecutionContext();
    await worker.scheduled(
      createScheduledController({ scheduledTime: at, cron }),
      { ...env, EVENTS: queued.binding },
      ctx,
    );
    await waitOnExecutionContext(ctx);
  }

  it("a crash between the change's batch and the send loses nothing: the event goes out a minute later", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const order = await orderIn(auth, "draft");
    // The queue is down when the request hands its event over: the change stands, the event waits.
    const lost = {
      send: () => Promise.reject(new Error("queue down")),
      sendBatch: () => Promise.reject(new Error("queue down")),
    } as unknown as Queue;
    const response = await call(`/card_orders/${order.id}/submit`, {
      token: auth,
      method: "POST",
      env: { EVENTS: lost },
    });
    expect(response.status).toBe(200);
    const [stored] = await storedEvents(customer);
    expect(stored).toMatchObject({ type: "card_order.submitted", dispatched_at: null });

    // Within the minute it is not sent again (the send may just be under way)...
    queued.take();
    await cron(Date.now());
    expect(
      queued.take().filter((message) => message.kind === "event" && message.event.id === stored!.id),
    ).toStrictEqual([]);
    // ...after it, it is; and once the consumer has it, never again.
    await env.DB.prepare("UPDATE events SET created_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 61_000).toISOString(), stored!.id)
      .run();
    await cron(Date.now());
    const resent = queued.messages.filter((message) => message.kind === "event" && message.event.id === stored!.id);
    expect(resent).toHaveLength(1);
    expect(resent[0]).toMatchObject({
      kind: "event",
      customerId: customer,
      event: { id: stored!.id, type: "card_order.submitted" },
    });
    await drain();
    await cron(Date.now());
    expect(
      queued.take().filter((message) => message.kind === "event" && message.event.id === stored!.id),
    ).toStrictEqual([]);
  });

  it("sweeps events older than 30 days every hour, and their counts with them", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    await orderIn(auth, "submitted");
    await orderIn(auth, "submitted");
    const [old] = await storedEvents(customer);
    await env.DB.prepare("UPDATE events SET created_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 31 * 86_400_000).toISOString(), old!.id)
      .run();
    await cron(Date.now(), "17 * * * *");
    expect((await storedEvents(customer)).map((event) => event.id)).not.toContain(old!.id);
    const page = await expectJson(await call("/events", { token: auth }), 200, expect.anything());
    expect(page.meta.total_entries).toBe(1);
  });
});

describe("GET /events", () => {
  it("pages the customer's events newest first, filters by type, and keeps other customers' apart", async () => {
    const auth = await token();
    for (let i = 0; i < 3; i++) await orderIn(auth, "submitted");
    await orderIn(auth, "cancelled");
    const all = await eventsOf(auth);
    expect(all.map((event: any) => event.type)).toStrictEqual([
      "card_order.cancelled",
      "card_order.submitted",
      "card_order.submitted",
      "card_order.submitted",
    ]);
    const at = (page: number) => `/events?type=card_order.submitted&page_size=2&page=${page}`;
    const link = (page: number) => listLink(at(page), page > 1);
    await expectJson(await call("/events?type=card_order.submitted&page_size=2", { token: auth }), 200, {
      meta: { total_pages: 2, current_page: 1, page_size: 2, total_entries: 3 },
      data: all.slice(1, 3),
      links: { self: BASE + at(1), first: BASE + at(1), last: link(2), prev: null, next: link(2) },
    });
    expect(await eventsOf(await token())).toStrictEqual([]);
  });

  it("refuses an unknown type (400), a token without events:read (403), or without a customer (403)", async () => {
    await expectError(await call("/events?type=card_order.created", { token: await token() }), 400, {
      code: "invalid_parameter",
      source: { parameter: "type" },
    });
    await expectError(await call("/events", { token: await token({ scope: "card_orders:read" }) }), 403, {
      code: "forbidden",
      source: { header: "Authorization" },
    });
    await expectError(await call("/events", { token: await token({ customer_id: undefined }) }), 403, {
      code: "forbidden",
      source: { header: "Authorization" },
    });
  });
});
