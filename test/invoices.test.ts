import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  BASE,
  businessDay,
  call,
  createCardOrder,
  createInvoice,
  expectError,
  expectJson,
  INVOICE_FIELDS,
  ISO_MS,
  listLink,
  newCardOrder,
  newEntry,
  orderIn,
  singlePage,
  token,
  unique,
  UUID,
  post,
} from "./support/api";

const CREDITOR = "Voucher Cards GmbH"; // wrangler.toml CREDITOR_NAME

/** The sequence part of `INV-2026-000042`. */
const sequenceOf = (number: string): number => {
  const match = /^(INV|CN)-(\d{4})-(\d{6,})$/.exec(number);
  expect(match, `${number} is not a well-formed number`).not.toBeNull();
  return Number(match![3]);
};

const isoDay = (at: Date) => at.toISOString().slice(0, 10);
const plusDays = (day: string, days: number) =>
  isoDay(new Date(Date.parse(`${day}T00:00:00.000Z`) + days * 86_400_000));

/** Invoices stored for a customer, straight from D1. */
async function storedInvoices(customer: string) {
  const { results } = await env.DB.prepare(
    "SELECT id, number, order_id, state FROM invoices WHERE customer_id = ? ORDER BY number",
  )
    .bind(customer)
    .all<{
      id: string;
      number: string;
      order_id: string;
      state: string;
    }>();
  return results;
}

/** Newest first (created_at descending, then id descending): the list order docs/api.md part 4 fixes. */
const newestFirst = <T extends { created_at: string; id: string }>(items: T[]) =>
  items.toSorted((a, b) =>
    a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1,
  );

describe("POST /invoices", () => {
  it("invoices a card order: 201, single-page envelope with the open invoice, fields in documented order", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const order = await orderIn(auth, "submitted", {
      order: { ...newCardOrder, payment_method: "direct_debit", cost_center: "CC-42" },
      entries: [newEntry, { ...newEntry, amount: "1234.50" }],
    });

    const response = await call("/invoices", {
      token: auth,
      json: { order_id: order.id, reference: "PO 2026/17 ✓" },
    });
    const body = await expectJson(
      response,
      201,
      singlePage("/invoices", [
        {
          id: expect.stringMatching(UUID),
          type: "invoice",
          number: expect.stringMatching(/^INV-\d{4}-\d{6}$/),
          state: "open",
          created_at: expect.stringMatching(ISO_MS),
          updated_at: expect.stringMatching(ISO_MS),
          booked_on: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
          service_period_start: null,
          service_period_end: null,
          creditor: CREDITOR,
          due_on: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
          paid_at: null,
          cancellation_number: "",
          cancelled_at: null,
          gross_amount: "1259.50",
          net_amount: "1259.50",
          recipient: customer,
          orders: [{ id: order.id, type: "card_order", state: "submitted" }],
          reference: "PO 2026/17 ✓",
          cost_center: "CC-42",
          payment_method: "direct_debit",
        },
      ]),
    );
    const [invoice] = body.data;
    expect(Object.keys(invoice)).toStrictEqual(INVOICE_FIELDS);
    expect(invoice.updated_at).toBe(invoice.created_at);
    expect(Date.now() - Date.parse(invoice.created_at)).toBeLessThan(60_000);
    // Dates and the number's year are the calendar day of the moment of creation in BUSINESS_TIME_ZONE
    // (docs/api.md part 14: Europe/Berlin, not UTC); created_at itself stays UTC.
    const today = businessDay(invoice.created_at);
    expect(invoice.booked_on).toBe(today);
    expect(invoice.due_on).toBe(plusDays(today, 14));
    expect(invoice.number.slice(4, 8)).toBe(today.slice(0, 4));

    await expectJson(await call(`/invoices/${invoice.id}`, { token: auth }), 200, { data: invoice });

    // The order now links the invoice, and its updated_at moved on.
    const linked = await expectJson(await call(`/card_orders/${order.id}`, { token: auth }), 200, {
      data: {
        ...order,
        updated_at: expect.stringMatching(ISO_MS),
        invoice: { id: invoice.id, type: "invoice", number: invoice.number },
      },
    });
    expect(linked.data.updated_at > order.updated_at).toBe(true);

    expect(await storedInvoices(customer)).toStrictEqual([
      { id: invoice.id, number: invoice.number, order_id: order.id, state: "open" },
    ]);
  });

  it("answers reference null when none is given, and copies a null cost center", async () => {
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    const invoice = await createInvoice(auth, order.id);
    expect(invoice).toMatchObject({ reference: null, cost_center: null, payment_method: "bank_transfer" });
    const withNull = await createInvoice(auth, (await orderIn(auth, "submitted")).id, null as unknown as string);
    expect(withNull.reference).toBeNull();
  });

  it("accepts a reference of 255 characters, emoji counted as one", async () => {
    const auth = await token();
    const invoice = await createInvoice(auth, (await orderIn(auth, "submitted")).id, "🧾".repeat(255));
    expect(invoice.reference).toBe("🧾".repeat(255));
  });

  it("invoices an order once it is submitted: submitted, in production or delivered", async () => {
    const auth = await token();
    for (const state of ["submitted", "in_production", "delivered"] as const) {
      const order = await orderIn(auth, state);
      const invoice = await createInvoice(auth, order.id);
      expect(invoice.orders).toStrictEqual([{ id: order.id, type: "card_order", state }]);
    }
  });

  it("answers 409 invalid_state for a draft order, saying when it can be invoiced, and stores nothing", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const draft = await orderIn(auth, "draft");
    const body = await expectError(await call("/invoices", { token: auth, json: { order_id: draft.id } }), 409, {
      code: "invalid_state",
    });
    expect(body.errors[0].detail).toMatch(/draft.*submitted/);
    expect(await storedInvoices(customer)).toStrictEqual([]);
    await expectJson(await call(`/card_orders/${draft.id}`, { token: auth }), 200, { data: draft });
  });

  it("answers 409 conflict when the order already has an open or paid invoice, and stores nothing", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const order = await orderIn(auth, "submitted");
    const first = await createInvoice(auth, order.id);
    const linkedOrder = (await (await call(`/card_orders/${order.id}`, { token: auth })).json()) as any;

    await expectError(await call("/invoices", { token: auth, json: { order_id: order.id } }), 409, {
      code: "conflict",
    });

    expect(await storedInvoices(customer)).toStrictEqual([
      { id: first.id, number: first.number, order_id: order.id, state: "open" },
    ]);
    await expectJson(await call(`/card_orders/${order.id}`, { token: auth }), 200, linkedOrder);
  });

  it("answers 409 invalid_state for a cancelled order, and stores nothing", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const order = await createCardOrder(auth);
    const cancelled = (await (await post(`/card_orders/${order.id}/cancel`, auth)).json()) as any;

    await expectError(await call("/invoices", { token: auth, json: { order_id: order.id } }), 409, {
      code: "invalid_state",
    });

    expect(await storedInvoices(customer)).toStrictEqual([]);
    await expectJson(await call(`/card_orders/${order.id}`, { token: auth }), 200, cancelled);
  });

  it.each([
    ["an id that does not exist", () => crypto.randomUUID()],
    ["a malformed id", () => "not-an-id'; --"],
    ["an empty id", () => ""],
  ])("answers 422 on /order_id for %s", async (_, id) => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    await expectError(await call("/invoices", { token: auth, json: { order_id: id() } }), 422, {
      code: "validation_failed",
      source: { pointer: "/order_id" },
    });
    expect(await storedInvoices(customer)).toStrictEqual([]);
  });

  it("answers 422 on /order_id for another customer's order, as for an unknown one, leaving it alone", async () => {
    const ownerAuth = await token();
    const order = await createCardOrder(ownerAuth);
    const intruder = unique("customer");
    const intruderAuth = await token({ customer_id: intruder });

    const foreign = await expectError(
      await call("/invoices", { token: intruderAuth, json: { order_id: order.id } }),
      422,
      {
        code: "validation_failed",
        source: { pointer: "/order_id" },
      },
    );
    const unknown = await (
      await call("/invoices", { token: intruderAuth, json: { order_id: crypto.randomUUID() } })
    ).json();
    expect(unknown).toStrictEqual(foreign);

    expect(await storedInvoices(intruder)).toStrictEqual([]);
    await expectJson(await call(`/card_orders/${order.id}`, { token: ownerAuth }), 200, { data: order });
  });

  it.each<[string, object, { pointer: string; detail?: string }[]]>([
    ["order_id missing", {}, [{ pointer: "/order_id", detail: "order_id is required." }]],
    ["order_id a number", { order_id: 42 }, [{ pointer: "/order_id" }]],
    ["order_id null", { order_id: null }, [{ pointer: "/order_id" }]],
    ["order_id an array", { order_id: ["x"] }, [{ pointer: "/order_id" }]],
    [
      "reference too long",
      { order_id: "ORDER", reference: "r".repeat(256) },
      [{ pointer: "/reference", detail: "reference must be at most 255 characters." }],
    ],
    ["reference a number", { order_id: "ORDER", reference: 7 }, [{ pointer: "/reference" }]],
    [
      "reference empty",
      { order_id: "ORDER", reference: "" },
      [{ pointer: "/reference", detail: "reference must not be empty; send null or leave it out." }],
    ],
    [
      "an unknown field",
      { order_id: "ORDER", amount: "10.00" },
      [{ pointer: "/amount", detail: '"amount" is not a known field.' }],
    ],
  ])("answers 422 validation_failed with pointers when %s, and stores nothing", async (_, json, errors) => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const order = await createCardOrder(auth);
    const body = JSON.parse(JSON.stringify(json).replace('"ORDER"', JSON.stringify(order.id)));

    const response = await call("/invoices", { token: auth, json: body });
    await expectError(
      response,
      422,
      ...errors.map(({ pointer, detail }) => ({ code: "validation_failed", source: { pointer }, detail })),
    );

    expect(await storedInvoices(customer)).toStrictEqual([]);
    await expectJson(await call(`/card_orders/${order.id}`, { token: auth }), 200, { data: order });
  });

  it("reports every offending field at once", async () => {
    const response = await call("/invoices", { token: await token(), json: { reference: 1, extra: true } });
    await expectError(
      response,
      422,
      { code: "validation_failed", source: { pointer: "/order_id" }, detail: "order_id is required." },
      { code: "validation_failed", source: { pointer: "/reference" } },
      { code: "validation_failed", source: { pointer: "/extra" }, detail: '"extra" is not a known field.' },
    );
  });
});

describe("invoice numbers", () => {
  it("are consecutive across customers: the sequence is service-wide", async () => {
    const a = await token();
    const b = await token();
    const first = await createInvoice(a, (await orderIn(a, "submitted")).id);
    const second = await createInvoice(b, (await orderIn(b, "submitted")).id);
    const third = await createInvoice(a, (await orderIn(a, "submitted")).id);
    expect([sequenceOf(second.number), sequenceOf(third.number)]).toStrictEqual([
      sequenceOf(first.number) + 1,
      sequenceOf(first.number) + 2,
    ]);
  });

  it("skip no number when creations fail in between", async () => {
    const auth = await token();
    const invoiced = await orderIn(auth, "submitted");
    const first = await createInvoice(auth, invoiced.id);
    const cancelled = await createCardOrder(auth);
    expect((await post(`/card_orders/${cancelled.id}/cancel`, auth)).status).toBe(200);

    expect((await call("/invoices", { token: auth, json: { order_id: invoiced.id } })).status).toBe(409);
    expect((await call("/invoices", { token: auth, json: { order_id: cancelled.id } })).status).toBe(409);
    expect((await call("/invoices", { token: auth, json: { order_id: crypto.randomUUID() } })).status).toBe(422);

    const next = await createInvoice(auth, (await orderIn(auth, "submitted")).id);
    expect(sequenceOf(next.number)).toBe(sequenceOf(first.number) + 1);
  });

  it("stay distinct and consecutive when 20 invoices of several customers are created at once", async () => {
    const customers = [unique("customer"), unique("customer"), unique("customer"), unique("customer")];
    const auths = await Promise.all(customers.map((customer_id) => token({ customer_id })));
    const orders: { auth: string; id: string }[] = [];
    for (let i = 0; i < 20; i++) {
      const auth = auths[i % auths.length]!;
      orders.push({ auth, id: (await orderIn(auth, "submitted")).id });
    }
    const before = await createInvoice(auths[0]!, (await orderIn(auths[0]!, "submitted")).id);

    const responses = await Promise.all(
      orders.map(({ auth, id }) => call("/invoices", { token: auth, json: { order_id: id } })),
    );
    const bodies = await Promise.all(responses.map(async (r) => ({ status: r.status, body: (await r.json()) as any })));
    expect(bodies.map((b) => b.status)).toStrictEqual(Array(20).fill(201));

    const invoices = bodies.map((b) => b.body.data[0]);
    expect(invoices.map((invoice) => invoice.orders[0].id)).toStrictEqual(orders.map((o) => o.id));
    const sequences = invoices.map((invoice) => sequenceOf(invoice.number)).toSorted((x, y) => x - y);
    const start = sequenceOf(before.number) + 1;
    expect(sequences).toStrictEqual(Array.from({ length: 20 }, (_, i) => start + i));

    const stored = (await Promise.all(customers.map(storedInvoices))).flat();
    expect(stored.filter((row) => row.id !== before.id)).toHaveLength(20);
    expect(new Set(stored.map((row) => row.number)).size).toBe(21);
    for (const invoice of invoices) {
      expect(stored).toContainEqual({
        id: invoice.id,
        number: invoice.number,
        order_id: invoice.orders[0].id,
        state: "open",
      });
    }
  }, 60_000);

  it("are taken once when several requests invoice one order at once: one 201, the rest 409 conflict", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const before = await createInvoice(auth, (await orderIn(auth, "submitted")).id);
    const order = await orderIn(auth, "submitted");

    const responses = await Promise.all(
      Array.from({ length: 6 }, () => call("/invoices", { token: auth, json: { order_id: order.id } })),
    );
    const statuses = responses.map((r) => r.status).toSorted();
    expect(statuses).toStrictEqual([201, 409, 409, 409, 409, 409]);
    for (const response of responses.filter((r) => r.status === 409))
      await expectError(response, 409, { code: "conflict" });
    const created = ((await responses.find((r) => r.status === 201)!.json()) as any).data[0];

    expect(sequenceOf(created.number)).toBe(sequenceOf(before.number) + 1);
    expect((await storedInvoices(customer)).map((row) => row.id)).toStrictEqual([before.id, created.id]);
    const next = await createInvoice(auth, (await orderIn(auth, "submitted")).id);
    expect(sequenceOf(next.number)).toBe(sequenceOf(created.number) + 1);
  }, 60_000);
});

describe("GET /invoices", () => {
  it("pages newest first with absolute links that keep the other query parameters", async () => {
    const auth = await token();
    const created = [];
    for (let i = 0; i < 5; i++)
      created.push(await createInvoice(auth, (await orderIn(auth, "submitted")).id, `ref ${i}`));
    const expected = newestFirst(created);
    const at = (page: number) => `/invoices?sort=x&page_size=2&page=${page}`;
    const link = (page: number) => listLink(at(page), page > 1);
    const pageOf = (page: number, data: unknown[], prev: number | null, next: number | null) => ({
      meta: { total_pages: 3, current_page: page, page_size: 2, total_entries: 5 },
      data,
      links: {
        self: BASE + at(page),
        first: BASE + at(1),
        last: link(3),
        prev: prev && link(prev),
        next: next && link(next),
      },
    });
    await expectJson(
      await call("/invoices?sort=x&page_size=2", { token: auth }),
      200,
      pageOf(1, expected.slice(0, 2), null, 2),
    );
    await expectJson(
      await call("/invoices?sort=x&page_size=2&page=2", { token: auth }),
      200,
      pageOf(2, expected.slice(2, 4), 1, 3),
    );
    await expectJson(
      await call("/invoices?sort=x&page_size=2&page=3", { token: auth }),
      200,
      pageOf(3, expected.slice(4), 2, null),
    );
    await expectJson(await call("/invoices?sort=x&page_size=2&page=4", { token: auth }), 200, pageOf(4, [], 3, null));
  });

  it("answers an empty first page of 25 for a customer without invoices", async () => {
    const link = `${BASE}/invoices?page=1&page_size=25`;
    await expectJson(await call("/invoices", { token: await token() }), 200, {
      meta: { total_pages: 1, current_page: 1, page_size: 25, total_entries: 0 },
      data: [],
      links: { self: link, first: link, last: link, prev: null, next: null },
    });
  });

  it("filters by state, by order_id, and by both, counting only the matches", async () => {
    const auth = await token();
    const [open, paid, cancelled] = [
      await createInvoice(auth, (await orderIn(auth, "submitted")).id),
      await createInvoice(auth, (await orderIn(auth, "submitted")).id),
      await createInvoice(auth, (await orderIn(auth, "submitted")).id),
    ];
    const paidNow = ((await (await post(`/invoices/${paid.id}/pay`, auth)).json()) as any).data;
    const cancelledNow = ((await (await post(`/invoices/${cancelled.id}/cancel`, auth)).json()) as any).data;

    const only = (query: string, data: unknown[]) => {
      const link = `${BASE}/invoices?${query}&page=1&page_size=25`;
      return {
        meta: { total_pages: 1, current_page: 1, page_size: 25, total_entries: data.length },
        data,
        links: { self: link, first: link, last: link, prev: null, next: null },
      };
    };
    await expectJson(await call("/invoices?state=open", { token: auth }), 200, only("state=open", [open]));
    await expectJson(await call("/invoices?state=paid", { token: auth }), 200, only("state=paid", [paidNow]));
    await expectJson(
      await call("/invoices?state=cancelled", { token: auth }),
      200,
      only("state=cancelled", [cancelledNow]),
    );
    const byOrder = `order_id=${paid.orders[0].id}`;
    await expectJson(await call(`/invoices?${byOrder}`, { token: auth }), 200, only(byOrder, [paidNow]));
    await expectJson(
      await call(`/invoices?${byOrder}&state=paid`, { token: auth }),
      200,
      only(`${byOrder}&state=paid`, [paidNow]),
    );
    await expectJson(
      await call(`/invoices?${byOrder}&state=open`, { token: auth }),
      200,
      only(`${byOrder}&state=open`, []),
    );
    const unknownOrder = `order_id=${crypto.randomUUID()}`;
    await expectJson(await call(`/invoices?${unknownOrder}`, { token: auth }), 200, only(unknownOrder, []));
  });

  it.each([
    ["state=draft", "state"],
    ["state=OPEN", "state"],
    ["state=", "state"],
    ["state=open&state=paid", "state"],
    ["order_id=a&order_id=b", "order_id"],
    ["page=0", "page"],
    ["page_size=101", "page_size"],
  ])("answers 400 invalid_parameter for %s", async (query, parameter) => {
    await expectError(await call(`/invoices?${query}`, { token: await token() }), 400, {
      code: "invalid_parameter",
      source: { parameter },
    });
  });

  it("never lists another customer's invoices, not even filtered by that customer's order", async () => {
    const other = await token();
    const foreign = await createInvoice(other, (await orderIn(other, "submitted")).id);
    const mine = await token();
    const own = await createInvoice(mine, (await orderIn(mine, "submitted")).id);

    const all = await expectJson(await call("/invoices", { token: mine }), 200, expect.anything());
    expect(all.data).toStrictEqual([own]);
    expect(all.meta.total_entries).toBe(1);
    const filtered = await expectJson(
      await call(`/invoices?order_id=${foreign.orders[0].id}`, { token: mine }),
      200,
      expect.anything(),
    );
    expect(filtered.data).toStrictEqual([]);
    expect(filtered.meta.total_entries).toBe(0);
  });
});

describe("GET /invoices/{id}", () => {
  it("answers {data: invoice} exactly as created", async () => {
    const auth = await token();
    const invoice = await createInvoice(auth, (await orderIn(auth, "submitted")).id, "ref");
    await expectJson(await call(`/invoices/${invoice.id}`, { token: auth }), 200, { data: invoice });
  });

  it("answers 404 for another customer's invoice, exactly as for one that does not exist", async () => {
    const owner = await token();
    const invoice = await createInvoice(owner, (await orderIn(owner, "submitted")).id);
    const other = await token();
    const foreign = await expectError(await call(`/invoices/${invoice.id}`, { token: other }), 404, {
      code: "not_found",
    });
    const missing = await call(`/invoices/${crypto.randomUUID()}`, { token: other });
    expect(await missing.json()).toStrictEqual(foreign);
  });

  it("answers 404 for a card order's id: ids of other resources name no invoice", async () => {
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    await createInvoice(auth, order.id);
    await expectError(await call(`/invoices/${order.id}`, { token: auth }), 404, { code: "not_found" });
  });

  it.each([
    ["SQL", "1' OR '1'='1"],
    ["emoji", "🧾"],
    ["very long", "9".repeat(5000)],
    ["percent", "%"],
    ["upper-case uuid", crypto.randomUUID().toUpperCase()],
  ])("answers 404 for an id that matches nothing (%s)", async (_, id) => {
    await expectError(await call(`/invoices/${encodeURIComponent(id)}`, { token: await token() }), 404, {
      code: "not_found",
    });
  });

  it("shows the card order's current state in orders[].state of each of its invoices as it moves on", async () => {
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    const invoice = await createInvoice(auth, order.id);
    for (const [action, state, count] of [
      ["start_production", "in_production", 2],
      ["deliver", "delivered", 3],
    ] as const) {
      expect((await post(`/card_orders/${order.id}/${action}`, auth)).status).toBe(200);
      const expected = { ...invoice, orders: [{ id: order.id, type: "card_order", state }] };
      await expectJson(await call(`/invoices/${invoice.id}`, { token: auth }), 200, { data: expected });
      const list = await expectJson(
        await call(`/invoices?order_id=${order.id}`, { token: auth }),
        200,
        expect.anything(),
      );
      expect(list.data).toHaveLength(count);
      expect(list.data).toContainEqual(expected);
      expect(list.data.map((listed: any) => listed.orders)).toStrictEqual(
        Array(count).fill([{ id: order.id, type: "card_order", state }]),
      );
    }
  });

  it("shows a cancelled order's state on its invoice, which the order's cancel cancelled too", async () => {
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    const invoice = await createInvoice(auth, order.id);
    expect((await post(`/card_orders/${order.id}/cancel`, auth)).status).toBe(200);
    const { data: cancelled } = await expectJson(await call(`/invoices/${invoice.id}`, { token: auth }), 200, {
      data: {
        ...invoice,
        state: "cancelled",
        updated_at: expect.stringMatching(ISO_MS),
        cancelled_at: expect.stringMatching(ISO_MS),
        cancellation_number: expect.stringMatching(/^CN-\d{4}-\d{6}$/),
        orders: [{ id: order.id, type: "card_order", state: "cancelled" }],
      },
    });
    // Numbered in the year of the cancellation's day in BUSINESS_TIME_ZONE (docs/api.md part 14).
    expect(cancelled.cancellation_number.slice(3, 7)).toBe(businessDay(cancelled.cancelled_at).slice(0, 4));
  });
});
