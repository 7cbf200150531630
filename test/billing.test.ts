import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  addEntry,
  businessDay,
  call,
  createCardOrder,
  createInvoice,
  expectError,
  expectJson,
  ISO_MS,
  newCardOrder,
  newEntry,
  orderIn,
  storeBillingProfile,
  token,
  unique,
  UUID,
  type Bindings,
  post,
} from "./support/api";

// docs/api.md part 10: the three invoices of a card order and their amounts. wrangler.toml leaves the
// fee and VAT variables at that part's defaults: vouchers 0 % VAT, production 2.50 per card and
// shipping 9.90 per order, both at 19 % (the default buyer is in Germany; buyers abroad:
// invoice-lines.test.ts). Business days and the years of numbers are those of BUSINESS_TIME_ZONE,
// Europe/Berlin (docs/api.md part 14; the hours around midnight: invoice-issuing.test.ts).

const today = () => businessDay();
const plusDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00.000Z`) + days * 86_400_000).toISOString().slice(0, 10);

async function get(path: string, auth: string): Promise<any> {
  const response = await call(path, { token: auth });
  expect(response.status).toBe(200);
  return ((await response.json()) as any).data;
}

async function transition(path: string, auth: string, bindings?: Bindings): Promise<any> {
  const response = await post(path, auth, bindings);
  expect({ path, status: response.status }).toStrictEqual({ path, status: 200 });
  return ((await response.json()) as any).data;
}

const ENTRIES = [
  { voucher_owner_id: "owner-a", card_holder_name: "Ada Lovelace", amount: "25.00" },
  { voucher_owner_id: "owner-b", card_holder_name: "Alan Turing", amount: "100.55" },
  { voucher_owner_id: "owner-a", card_holder_name: "Ada Lovelace", amount: "9999.99" },
];

const lastNumber = async (series: string) =>
  (await env.DB.prepare("SELECT last FROM number_sequences WHERE series = ? AND year = ?")
    .bind(series, Number(businessDay().slice(0, 4)))
    .first<number>("last")) ?? 0;

describe("the voucher invoice (POST /invoices)", () => {
  it("bills the entries' sum at VOUCHER_VAT_PERCENT (0 %) to the order's customer, no service period", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const order = await orderIn(auth, "submitted", {
      order: { ...newCardOrder, cost_center: "CC-1", invoice_reference: "PO-9" },
      entries: ENTRIES,
    });
    const invoice = await createInvoice(auth, order.id, "REF-1");
    expect(invoice).toMatchObject({
      net_amount: "10125.54",
      gross_amount: "10125.54",
      recipient: customer,
      service_period_start: null,
      service_period_end: null,
      reference: "REF-1",
      cost_center: "CC-1",
      payment_method: "bank_transfer",
      booked_on: today(),
      due_on: plusDays(today(), 14),
    });
  });

  it("applies a configured VOUCHER_VAT_PERCENT, rounding half up once per invoice", async () => {
    const auth = await token();
    // 3 × 1.10 at 7.5 %, rounded once for the invoice (per entry it would be 3 × 0.08 = 0.24).
    const order = await orderIn(auth, "submitted", { entries: [1, 2, 3].map(() => ({ ...newEntry, amount: "1.10" })) });
    const response = await call("/invoices", {
      token: auth,
      json: { order_id: order.id },
      env: { VOUCHER_VAT_PERCENT: "7.5" },
    });
    const [invoice] = ((await response.json()) as any).data;
    // 3.30 × 7.5 % = 0.2475 → 0.25
    expect(invoice).toMatchObject({ net_amount: "3.30", gross_amount: "3.55" });
  });

  it("can be made again once cancelled: a new number, linked as the order's invoice; the old one stays", async () => {
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    const first = await createInvoice(auth, order.id);
    await expectError(await call("/invoices", { token: auth, json: { order_id: order.id } }), 409, {
      code: "conflict",
    });
    const cancelled = await transition(`/invoices/${first.id}/cancel`, auth);
    const second = await createInvoice(auth, order.id);
    expect(second.number).not.toBe(first.number);
    expect(second).toMatchObject({ state: "open", net_amount: first.net_amount, gross_amount: first.gross_amount });
    expect((await get(`/card_orders/${order.id}`, auth)).invoice).toStrictEqual({
      id: second.id,
      type: "invoice",
      number: second.number,
    });
    expect(await get(`/invoices/${first.id}`, auth)).toStrictEqual(cancelled);
    await expectError(await call("/invoices", { token: auth, json: { order_id: order.id } }), 409, {
      code: "conflict",
    });
  });

  it("answers 409 conflict for an order whose invoice is paid", async () => {
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    const invoice = await createInvoice(auth, order.id);
    await transition(`/invoices/${invoice.id}/pay`, auth);
    const body = await expectError(await call("/invoices", { token: auth, json: { order_id: order.id } }), 409, {
      code: "conflict",
    });
    expect(body.errors[0].detail).toContain(invoice.number);
  });
});

describe("the production invoice (start_production)", () => {
  it("in the batch, linked: entries_count × CARD_PRODUCTION_FEE at SERVICE_VAT_PERCENT, served that day", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const order = await orderIn(auth, "submitted", {
      order: { ...newCardOrder, invoice_reference: "PO-77", cost_center: "CC-3" },
      entries: ENTRIES,
    });
    const producing = await transition(`/card_orders/${order.id}/start_production`, auth);
    const link = producing.production_invoice;
    expect(link).toStrictEqual({
      id: expect.stringMatching(UUID),
      type: "invoice",
      number: expect.stringMatching(/^INV-\d{4}-\d{6}$/),
    });
    const day = businessDay(producing.production_started_at);

    const invoice = await get(`/invoices/${link.id}`, auth);
    // 3 cards × 2.50 = 7.50; 19 % = 1.425 → 1.43
    expect(invoice).toMatchObject({
      number: link.number,
      state: "open",
      net_amount: "7.50",
      gross_amount: "8.93",
      recipient: customer,
      booked_on: day,
      due_on: plusDays(day, 14),
      service_period_start: day,
      service_period_end: day,
      reference: "PO-77",
      cost_center: "CC-3",
      payment_method: "bank_transfer",
      orders: [{ id: order.id, type: "card_order", state: "in_production" }],
    });
    expect(await get(`/card_orders/${order.id}`, auth)).toStrictEqual(producing);
  });

  it("uses the configured fee and rate, read when the invoice is made", async () => {
    const auth = await token();
    const order = await orderIn(auth, "submitted", { entries: ENTRIES });
    const producing = await transition(`/card_orders/${order.id}/start_production`, auth, {
      CARD_PRODUCTION_FEE: "0.05",
      SERVICE_VAT_PERCENT: "16.25",
    });
    // 3 × 0.05 = 0.15; 16.25 % = 0.024375 → 0.02
    expect(await get(`/invoices/${producing.production_invoice.id}`, auth)).toMatchObject({
      net_amount: "0.15",
      gross_amount: "0.17",
    });
  });
});

describe("the shipping invoice (deliver)", () => {
  it("in the batch, linked: SHIPPING_FEE once per order at SERVICE_VAT_PERCENT, served that day", async () => {
    const auth = await token();
    const order = await orderIn(auth, "in_production", {
      order: { ...newCardOrder, invoice_reference: "PO-5" },
      entries: ENTRIES,
    });
    const delivered = await transition(`/card_orders/${order.id}/deliver`, auth);
    expect(delivered.production_invoice).toStrictEqual(order.production_invoice);
    const day = businessDay(delivered.delivered_at);
    const invoice = await get(`/invoices/${delivered.shipping_invoice.id}`, auth);
    // 9.90; 19 % = 1.881 → 1.88
    expect(invoice).toMatchObject({
      net_amount: "9.90",
      gross_amount: "11.78",
      booked_on: day,
      due_on: plusDays(day, 14),
      service_period_start: day,
      service_period_end: day,
      reference: "PO-5",
    });
    expect(invoice.orders).toStrictEqual([{ id: order.id, type: "card_order", state: "delivered" }]);
  });

  it("the order's invoices are all listed by order_id, each showing the order's state", async () => {
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    const voucher = await createInvoice(auth, order.id);
    await transition(`/card_orders/${order.id}/start_production`, auth);
    const delivered = await transition(`/card_orders/${order.id}/deliver`, auth);
    const list = await expectJson(
      await call(`/invoices?order_id=${order.id}`, { token: auth }),
      200,
      expect.anything(),
    );
    expect(list.data.map((invoice: any) => invoice.id).toSorted()).toStrictEqual(
      [voucher.id, delivered.production_invoice.id, delivered.shipping_invoice.id].toSorted(),
    );
    expect(list.meta.total_entries).toBe(3);
  });
});

describe("a malformed fee, VAT or seller variable", () => {
  afterEach(() => vi.restoreAllMocks());

  it.each([
    ["CARD_PRODUCTION_FEE", "2,50", "start_production"],
    ["SERVICE_VAT_PERCENT", "19%", "start_production"],
    ["SHIPPING_FEE", "-9.90", "deliver"],
    ["SHIPPING_FEE", "010.00", "deliver"],
    // docs/api.md part 13: the seller of the invoice, checked when it is issued.
    ["CREDITOR_IBAN", "DE02120300000000202052", "start_production"],
    ["CREDITOR_STREET", "", "start_production"],
    ["CREDITOR_COUNTRY", "XX", "deliver"],
    ["CREDITOR_VAT_ID", "AT123456789", "deliver"],
    ["CREDITOR_CONTACT_EMAIL", "billing at example", "start_production"],
    // docs/api.md part 14: no zero rate for the fees (category Z is gone), what the fees pay for, the
    // calendar invoices are dated in, and the managing directors every document names.
    ["SERVICE_VAT_PERCENT", "0", "start_production"],
    ["SERVICE_VAT_PERCENT", "0.00", "deliver"],
    ["FEE_SUPPLY_KIND", "both", "start_production"],
    ["FEE_SUPPLY_KIND", "Goods", "deliver"],
    ["BUSINESS_TIME_ZONE", "Mars/Olympus", "start_production"],
    ["BUSINESS_TIME_ZONE", "CET+1", "deliver"],
    ["CREDITOR_MANAGING_DIRECTORS", "", "start_production"],
    ["CREDITOR_MANAGING_DIRECTORS", "", "deliver"],
  ] as const)(
    "%s=%j fails %s with 500, logs the variable's name, and changes nothing",
    async (variable, value, action) => {
      const errors: string[] = [];
      vi.spyOn(console, "error").mockImplementation((line: unknown) => void errors.push(String(line)));
      const auth = await token();
      const order = await orderIn(auth, action === "deliver" ? "in_production" : "submitted");
      const before = await lastNumber("INV");
      await expectError(await post(`/card_orders/${order.id}/${action}`, auth, { [variable]: value }), 500, {
        code: "internal_error",
      });
      expect(errors.some((line) => line.includes(variable))).toBe(true);
      expect(await get(`/card_orders/${order.id}`, auth)).toStrictEqual(order);
      expect(await lastNumber("INV")).toBe(before);
    },
  );

  it.each([
    ["VOUCHER_VAT_PERCENT", "seven"],
    ["BUSINESS_TIME_ZONE", "Mars/Olympus"],
    ["CREDITOR_MANAGING_DIRECTORS", ""],
  ] as const)(
    "%s=%j fails POST /invoices with 500, logs the variable's name, and makes no invoice",
    async (variable, value) => {
      const errors: string[] = [];
      vi.spyOn(console, "error").mockImplementation((line: unknown) => void errors.push(String(line)));
      const customer = unique("customer");
      const auth = await token({ customer_id: customer });
      const order = await orderIn(auth, "submitted");
      const before = await lastNumber("INV");
      await expectError(
        await call("/invoices", { token: auth, json: { order_id: order.id }, env: { [variable]: value } }),
        500,
        { code: "internal_error" },
      );
      expect(errors.some((line) => line.includes(variable))).toBe(true);
      expect(
        await env.DB.prepare("SELECT count(*) AS n FROM invoices WHERE customer_id = ?")
          .bind(customer)
          .first<number>("n"),
      ).toBe(0);
      expect(await lastNumber("INV")).toBe(before);
      expect(await get(`/card_orders/${order.id}`, auth)).toStrictEqual(order);
    },
  );

  it('SERVICE_VAT_PERCENT="0" fails the fees of a buyer abroad too, though their categories carry no VAT', async () => {
    const errors: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: unknown) => void errors.push(String(line)));
    const auth = await token();
    await storeBillingProfile(auth, { country_code: "FR", vat_id: "FR40303265045", leitweg_id: null });
    const order = await orderIn(auth, "submitted");
    const before = await lastNumber("INV");
    await expectError(
      await post(`/card_orders/${order.id}/start_production`, auth, { SERVICE_VAT_PERCENT: "0" }),
      500,
      { code: "internal_error" },
    );
    expect(errors.some((line) => line.includes("SERVICE_VAT_PERCENT"))).toBe(true);
    expect(await get(`/card_orders/${order.id}`, auth)).toStrictEqual(order);
    expect(await lastNumber("INV")).toBe(before);
  });

  it("BUSINESS_TIME_ZONE malformed fails a cancellation (its CN number and day) with 500; nothing changes", async () => {
    const errors: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: unknown) => void errors.push(String(line)));
    const loggedZone = () => errors.splice(0).some((line) => line.includes("BUSINESS_TIME_ZONE"));
    const auth = await token();
    const bad = { BUSINESS_TIME_ZONE: "Mars/Olympus" };
    // POST /invoices/{id}/cancel
    const order = await orderIn(auth, "submitted");
    const invoice = await createInvoice(auth, order.id);
    const before = await lastNumber("CN");
    await expectError(await post(`/invoices/${invoice.id}/cancel`, auth, bad), 500, { code: "internal_error" });
    expect(loggedZone()).toBe(true);
    expect(await get(`/invoices/${invoice.id}`, auth)).toStrictEqual(invoice);
    // cancelling the order, which cancels its open voucher invoice
    const orderBefore = await get(`/card_orders/${order.id}`, auth);
    await expectError(await post(`/card_orders/${order.id}/cancel`, auth, bad), 500, { code: "internal_error" });
    expect(loggedZone()).toBe(true);
    expect(await get(`/card_orders/${order.id}`, auth)).toStrictEqual(orderBefore);
    expect(await get(`/invoices/${invoice.id}`, auth)).toStrictEqual(invoice);
    expect(await lastNumber("CN")).toBe(before);
  });

  it("does not touch invoices made before: amounts never change once an invoice exists", async () => {
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    const invoice = await createInvoice(auth, order.id);
    const read = await call(`/invoices/${invoice.id}`, {
      token: auth,
      env: { VOUCHER_VAT_PERCENT: "50", SHIPPING_FEE: "bad" },
    });
    expect(((await read.json()) as any).data).toStrictEqual(invoice);
  });
});

describe("cancelling an invoiced order (docs/api.md parts 10 and 12)", () => {
  it("cancels its open voucher invoice in the same batch: CN number, cancelled_at, the order's state", async () => {
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    const invoice = await createInvoice(auth, order.id);
    const before = await lastNumber("CN");
    const cancelled = await transition(`/card_orders/${order.id}/cancel`, auth);
    expect(cancelled).toMatchObject({
      state: "cancelled",
      invoice: { id: invoice.id, type: "invoice", number: invoice.number },
    });
    const after = await get(`/invoices/${invoice.id}`, auth);
    expect(after).toStrictEqual({
      ...invoice,
      state: "cancelled",
      updated_at: expect.stringMatching(ISO_MS),
      cancelled_at: after.updated_at,
      cancellation_number: `CN-${businessDay(after.cancelled_at).slice(0, 4)}-${String(before + 1).padStart(6, "0")}`,
      orders: [{ id: order.id, type: "card_order", state: "cancelled" }],
    });
  });

  it("with a paid voucher invoice answers 409 conflict and changes nothing", async () => {
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    const invoice = await createInvoice(auth, order.id);
    const paid = await transition(`/invoices/${invoice.id}/pay`, auth);
    const orderBefore = await get(`/card_orders/${order.id}`, auth);
    const body = await expectError(await post(`/card_orders/${order.id}/cancel`, auth), 409, { code: "conflict" });
    expect(body.errors[0].detail).toContain("paid");
    expect(await get(`/card_orders/${order.id}`, auth)).toStrictEqual(orderBefore);
    expect(await get(`/invoices/${invoice.id}`, auth)).toStrictEqual(paid);
  });

  it("with a cancelled voucher invoice simply cancels the order", async () => {
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    const invoice = await createInvoice(auth, order.id);
    const cancelledInvoice = await transition(`/invoices/${invoice.id}/cancel`, auth);
    expect((await transition(`/card_orders/${order.id}/cancel`, auth)).state).toBe("cancelled");
    expect(await get(`/invoices/${invoice.id}`, auth)).toStrictEqual({
      ...cancelledInvoice,
      orders: [{ id: order.id, type: "card_order", state: "cancelled" }],
    });
  });

  it("from a state that forbids it answers invalid_state, whatever its invoices", async () => {
    const auth = await token();
    const order = await orderIn(auth, "in_production");
    const invoice = await createInvoice(auth, order.id);
    await transition(`/invoices/${invoice.id}/pay`, auth);
    await expectError(await post(`/card_orders/${order.id}/cancel`, auth), 409, { code: "invalid_state" });
  });

  it("lets exactly one of a racing pay and order cancel win", { timeout: 60_000 }, async () => {
    for (let round = 0; round < 4; round++) {
      const auth = await token();
      const order = await orderIn(auth, "submitted");
      const invoice = await createInvoice(auth, order.id);
      const [pay, cancel] = await Promise.all([
        post(`/invoices/${invoice.id}/pay`, auth),
        post(`/card_orders/${order.id}/cancel`, auth),
      ]);
      const statuses = [pay.status, cancel.status];
      const after = {
        order: await get(`/card_orders/${order.id}`, auth),
        invoice: await get(`/invoices/${invoice.id}`, auth),
      };
      // Either the invoice was paid (and the order stays submitted), or both were cancelled.
      if (pay.status === 200)
        expect({ statuses, order: after.order.state, invoice: after.invoice.state }).toStrictEqual({
          statuses: [200, 409],
          order: "submitted",
          invoice: "paid",
        });
      else
        expect({ statuses, order: after.order.state, invoice: after.invoice.state }).toStrictEqual({
          statuses: [409, 200],
          order: "cancelled",
          invoice: "cancelled",
        });
    }
  });
});

describe("invoice numbers across the three kinds", () => {
  it("stay gapless and distinct when production, shipping and voucher invoices are made at once", {
    timeout: 90_000,
  }, async () => {
    const auths = await Promise.all([1, 2, 3].map(() => token()));
    const forVoucher = [];
    const forProduction = [];
    const forShipping = [];
    for (const [i, auth] of auths.entries()) {
      forVoucher.push({ auth, id: (await orderIn(auth, "submitted")).id });
      forProduction.push({ auth, id: (await orderIn(auth, "submitted")).id });
      forShipping.push({
        auth,
        id: (await orderIn(auth, "in_production", { entries: [{ ...newEntry, voucher_owner_id: `o-${i}` }] })).id,
      });
    }
    const before = await lastNumber("INV");
    const responses = await Promise.all([
      ...forVoucher.map(({ auth, id }) => call("/invoices", { token: auth, json: { order_id: id } })),
      ...forProduction.map(({ auth, id }) => post(`/card_orders/${id}/start_production`, auth)),
      ...forShipping.map(({ auth, id }) => post(`/card_orders/${id}/deliver`, auth)),
    ]);
    expect(responses.map((r) => r.status)).toStrictEqual([...Array(3).fill(201), ...Array(6).fill(200)]);
    const bodies = await Promise.all(responses.map((r) => r.json() as Promise<any>));
    const numbers = [
      ...bodies.slice(0, 3).map((b) => b.data[0].number),
      ...bodies.slice(3, 6).map((b) => b.data.production_invoice.number),
      ...bodies.slice(6).map((b) => b.data.shipping_invoice.number),
    ];
    const sequences = numbers.map((number: string) => Number(number.slice(-6))).toSorted((a, b) => a - b);
    expect(sequences).toStrictEqual(Array.from({ length: 9 }, (_, i) => before + 1 + i));
    expect(await lastNumber("INV")).toBe(before + 9);
  });
});

describe("entries and invoices together", () => {
  it("an order of entries for several owners bills their cards, production and shipping", async () => {
    const auth = await token();
    const order = await createCardOrder(auth, { ...newCardOrder, invoice_reference: "PO-1" });
    for (const entry of ENTRIES) await addEntry(auth, order.id, entry);
    await transition(`/card_orders/${order.id}/submit`, auth);
    const voucher = await createInvoice(auth, order.id);
    await transition(`/card_orders/${order.id}/start_production`, auth);
    const delivered = await transition(`/card_orders/${order.id}/deliver`, auth);
    const production = await get(`/invoices/${delivered.production_invoice.id}`, auth);
    const shipping = await get(`/invoices/${delivered.shipping_invoice.id}`, auth);
    expect([voucher, production, shipping].map((invoice) => [invoice.net_amount, invoice.gross_amount])).toStrictEqual([
      ["10125.54", "10125.54"],
      ["7.50", "8.93"],
      ["9.90", "11.78"],
    ]);
    expect(delivered.entries_count).toBe(3);
  });
});
