import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  addEntry,
  type Bindings,
  businessDay,
  call,
  createCardOrder,
  createInvoice,
  customerOfToken,
  expectError,
  expectJson,
  newCardOrder,
  newEntry,
  orderIn,
  storeBillingProfile,
  token,
  post,
} from "./support/api";

// docs/api.md part 14: when an invoice is issued, and what it is issued from. Its dates and the year of
// its number are calendar days in BUSINESS_TIME_ZONE (Europe/Berlin in wrangler.toml), date-times stay
// UTC; nothing is issued to a customer whose billing profile cannot make a valid e-invoice; and no
// customer text that an e-invoice (XML 1.0) cannot carry is stored.
//
// The Worker runs in the test's isolate (test/support/api.ts calls its fetch directly), so faking Date
// here moves the Worker's clock too: every request of a test below runs at the instant it sets, which
// stands still until the test sets another (each stamp still a millisecond after the last).

async function ok(path: string, auth: string, bindings?: Bindings): Promise<any> {
  const response = await post(path, auth, bindings);
  expect({ path, status: response.status }).toStrictEqual({ path, status: 200 });
  return ((await response.json()) as any).data;
}

async function get(path: string, auth: string): Promise<any> {
  return (await expectJson(await call(path, { token: auth }), 200, expect.anything())).data;
}

async function issue(auth: string, orderId: string, bindings?: Bindings): Promise<any> {
  const response = await call("/invoices", { token: auth, json: { order_id: orderId }, env: bindings });
  expect(response.status).toBe(201);
  return ((await response.json()) as any).data[0];
}

/** The principal and customer of `auth`, for a token of the same caller at another (faked) time. */
const claimsOf = (auth: string) => {
  const { sub, customer_id } = JSON.parse(atob(auth.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")));
  return { sub, customer_id };
};

/** The last number taken of `series` in `year` (0: none yet). Numbers are global to the file's D1. */
const lastNumber = async (series: "INV" | "CN", year: number) =>
  (await env.DB.prepare("SELECT last FROM number_sequences WHERE series = ? AND year = ?")
    .bind(series, year)
    .first<number>("last")) ?? 0;

const numbered = (series: "INV" | "CN", year: number, sequence: number) =>
  `${series}-${year}-${String(sequence).padStart(6, "0")}`;

/** A date-time of the instant `at` was set to (UTC, milliseconds: the stamps step a millisecond each). */
const stampAt = (at: string) => expect.stringMatching(new RegExp(`^${at.slice(0, 19)}\\.\\d{3}Z$`));

const count = async (table: string, customer: string) =>
  (await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE customer_id = ?`)
    .bind(customer)
    .first<number>("n")) ?? 0;

describe("business dates are days in BUSINESS_TIME_ZONE, date-times UTC (docs/api.md part 14)", () => {
  afterEach(() => vi.useRealTimers());

  /** Sets the clock (the test's and the Worker's) to `at` and keeps it there. */
  const clockAt = (at: string) => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(at));
  };

  it("fake timers reach the Worker: its stamps are the instant the test set", async () => {
    clockAt("2026-05-05T05:05:05.000Z");
    const auth = await token();
    const order = await createCardOrder(auth);
    expect(order.created_at).toBe("2026-05-05T05:05:05.000Z");
  });

  it("an invoice issued at 2026-03-01T23:30:00Z (00:30 in Berlin) is booked on 2026-03-02, due 2026-03-16", async () => {
    clockAt("2026-03-01T23:30:00.000Z");
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    const before = await lastNumber("INV", 2026);
    const invoice = await issue(auth, order.id);
    expect(invoice).toMatchObject({
      number: numbered("INV", 2026, before + 1),
      created_at: stampAt("2026-03-01T23:30:00Z"),
      booked_on: "2026-03-02",
      due_on: "2026-03-16",
      service_period_start: null,
      service_period_end: null,
    });
    expect(invoice.updated_at).toBe(invoice.created_at);
    expect(await get(`/invoices/${invoice.id}`, auth)).toStrictEqual(invoice);
    const paid = await ok(`/invoices/${invoice.id}/pay`, auth);
    expect(paid).toMatchObject({ paid_at: stampAt("2026-03-01T23:30:00Z"), booked_on: "2026-03-02" });
  });

  it.each([
    // CET (UTC+1): midnight is 23:00 UTC.
    ["2026-03-01T22:59:59.000Z", "2026-03-01", "2026-03-15"],
    ["2026-03-01T23:00:00.000Z", "2026-03-02", "2026-03-16"],
    // CEST (UTC+2): midnight is 22:00 UTC.
    ["2026-07-31T21:59:59.000Z", "2026-07-31", "2026-08-14"],
    ["2026-07-31T22:00:00.000Z", "2026-08-01", "2026-08-15"],
  ])("an invoice issued at %s is booked on %s, due %s", async (at, bookedOn, dueOn) => {
    clockAt(at);
    const auth = await token();
    const invoice = await issue(auth, (await orderIn(auth, "submitted")).id);
    expect(invoice).toMatchObject({ created_at: stampAt(at), booked_on: bookedOn, due_on: dueOn });
  });

  it("an invoice issued at 2026-12-31T23:30:00Z is dated 2027-01-01 and numbered INV-2027-…", async () => {
    clockAt("2026-12-31T23:30:00.000Z");
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    const [before2026, before2027] = [await lastNumber("INV", 2026), await lastNumber("INV", 2027)];
    const invoice = await issue(auth, order.id);
    expect(invoice).toMatchObject({
      number: numbered("INV", 2027, before2027 + 1),
      created_at: stampAt("2026-12-31T23:30:00Z"),
      booked_on: "2027-01-01",
      due_on: "2027-01-15",
    });
    expect([await lastNumber("INV", 2026), await lastNumber("INV", 2027)]).toStrictEqual([before2026, before2027 + 1]);
    expect((await get(`/card_orders/${order.id}`, auth)).invoice).toStrictEqual({
      id: invoice.id,
      type: "invoice",
      number: invoice.number,
    });
  });

  it("the production and shipping invoices: booked and served on the business day, numbered in its year", async () => {
    clockAt("2026-12-31T23:30:00.000Z");
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    const before = await lastNumber("INV", 2027);
    const producing = await ok(`/card_orders/${order.id}/start_production`, auth);
    expect(producing.production_started_at).toEqual(stampAt("2026-12-31T23:30:00Z"));
    expect(producing.production_invoice.number).toBe(numbered("INV", 2027, before + 1));
    expect(await get(`/invoices/${producing.production_invoice.id}`, auth)).toMatchObject({
      number: numbered("INV", 2027, before + 1),
      created_at: stampAt("2026-12-31T23:30:00Z"),
      booked_on: "2027-01-01",
      due_on: "2027-01-15",
      service_period_start: "2027-01-01",
      service_period_end: "2027-01-01",
    });

    // Delivered a day later, at 00:30 in Berlin again: its own day (with a token of that day).
    vi.setSystemTime(new Date("2027-01-01T23:30:00.000Z"));
    const nextDay = await token(claimsOf(auth));
    const delivered = await ok(`/card_orders/${order.id}/deliver`, nextDay);
    expect(delivered.delivered_at).toEqual(stampAt("2027-01-01T23:30:00Z"));
    expect(await get(`/invoices/${delivered.shipping_invoice.id}`, nextDay)).toMatchObject({
      number: numbered("INV", 2027, before + 2),
      booked_on: "2027-01-02",
      due_on: "2027-01-16",
      service_period_start: "2027-01-02",
      service_period_end: "2027-01-02",
    });
  });

  it("a production invoice at 2026-03-01T23:30:00Z is served on 2026-03-02", async () => {
    clockAt("2026-03-01T23:30:00.000Z");
    const auth = await token();
    const producing = await ok(`/card_orders/${(await orderIn(auth, "submitted")).id}/start_production`, auth);
    expect(await get(`/invoices/${producing.production_invoice.id}`, auth)).toMatchObject({
      booked_on: "2026-03-02",
      due_on: "2026-03-16",
      service_period_start: "2026-03-02",
      service_period_end: "2026-03-02",
    });
  });

  it("a cancellation at 2026-12-31T23:30:00Z gets a CN-2027-… number; the credit note is issued 2027-01-01", async () => {
    clockAt("2026-12-31T12:00:00.000Z");
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    const before2026 = await lastNumber("INV", 2026);
    const invoice = await issue(auth, order.id);
    expect(invoice).toMatchObject({ number: numbered("INV", 2026, before2026 + 1), booked_on: "2026-12-31" });

    vi.setSystemTime(new Date("2026-12-31T23:30:00.000Z"));
    const later = await token(claimsOf(auth));
    const [cn2026, cn2027] = [await lastNumber("CN", 2026), await lastNumber("CN", 2027)];
    const cancelled = await ok(`/invoices/${invoice.id}/cancel`, later);
    expect(cancelled).toStrictEqual({
      ...invoice,
      state: "cancelled",
      updated_at: stampAt("2026-12-31T23:30:00Z"),
      cancelled_at: cancelled.updated_at,
      cancellation_number: numbered("CN", 2027, cn2027 + 1),
    });
    expect([await lastNumber("CN", 2026), await lastNumber("CN", 2027)]).toStrictEqual([cn2026, cn2027 + 1]);

    // The credit note: issued on the business day of cancelled_at, referring to the invoice and its day.
    const response = await call(`/invoices/${invoice.id}/credit_note?format=ubl`, { token: later });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).toContain(`<cbc:ID>${cancelled.cancellation_number}</cbc:ID>`);
    // The credit note's own IssueDate comes first; the invoice's stands in its reference.
    expect(/<cbc:IssueDate>([^<]*)<\/cbc:IssueDate>/.exec(text)?.[1]).toBe("2027-01-01");
    expect(text).toMatch(
      new RegExp(
        `<cac:InvoiceDocumentReference>\\s*<cbc:ID>${invoice.number}</cbc:ID>\\s*` +
          "<cbc:IssueDate>2026-12-31</cbc:IssueDate>",
      ),
    );
  });

  it("cancelling an order at 2026-12-31T23:30:00Z numbers its voucher invoice's cancellation CN-2027-…", async () => {
    clockAt("2026-12-31T23:30:00.000Z");
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    const invoice = await issue(auth, order.id);
    const before = await lastNumber("CN", 2027);
    await ok(`/card_orders/${order.id}/cancel`, auth);
    expect(await get(`/invoices/${invoice.id}`, auth)).toMatchObject({
      state: "cancelled",
      cancelled_at: stampAt("2026-12-31T23:30:00Z"),
      cancellation_number: numbered("CN", 2027, before + 1),
    });
  });

  it('with BUSINESS_TIME_ZONE "UTC" the days and years are UTC\'s', async () => {
    const utc = { BUSINESS_TIME_ZONE: "UTC" };
    clockAt("2026-12-31T23:30:00.000Z");
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    const [inv, cn] = [await lastNumber("INV", 2026), await lastNumber("CN", 2026)];
    const invoice = await issue(auth, order.id, utc);
    expect(invoice).toMatchObject({
      number: numbered("INV", 2026, inv + 1),
      booked_on: "2026-12-31",
      due_on: "2027-01-14",
    });
    const cancelled = await ok(`/invoices/${invoice.id}/cancel`, auth, utc);
    expect(cancelled.cancellation_number).toBe(numbered("CN", 2026, cn + 1));
    const producing = await ok(`/card_orders/${order.id}/start_production`, auth, utc);
    expect(producing.production_invoice.number).toBe(numbered("INV", 2026, inv + 2));
    expect(await get(`/invoices/${producing.production_invoice.id}`, auth)).toMatchObject({
      booked_on: "2026-12-31",
      due_on: "2027-01-14",
      service_period_start: "2026-12-31",
      service_period_end: "2026-12-31",
    });
  });

  it("any IANA zone: America/New_York dates 2026-03-02T03:00:00Z on 2026-03-01", async () => {
    clockAt("2026-03-02T03:00:00.000Z");
    const auth = await token();
    const invoice = await issue(auth, (await orderIn(auth, "submitted")).id, {
      BUSINESS_TIME_ZONE: "America/New_York",
    });
    expect(invoice).toMatchObject({ booked_on: "2026-03-01", due_on: "2026-03-15" });
  });
});

describe("nothing is issued to a profile that cannot make a valid e-invoice: 409 conflict (docs/api.md part 14)", () => {
  const DIRECT_DEBIT = ["direct_debit_iban", "direct_debit_mandate_reference", "direct_debit_mandate_signed_on"];

  /** How the profile is spoiled after the order was submitted with a full one, and what the detail names. */
  const PROFILES = [
    {
      lacks: "a profile",
      payment: "bank_transfer",
      spoil: (customer: string) => env.DB.prepare("DELETE FROM billing_profiles WHERE customer_id = ?").bind(customer),
      names: ["billing profile", "PUT /customers/me/billing_profile"],
    },
    {
      lacks: "the email",
      payment: "bank_transfer",
      spoil: (customer: string) =>
        env.DB.prepare("UPDATE billing_profiles SET email = NULL WHERE customer_id = ?").bind(customer),
      names: ["email"],
    },
    // The red team's case: a direct-debit profile that loses its account and mandate after submit.
    {
      lacks: "the IBAN, mandate and its date (direct_debit)",
      payment: "direct_debit",
      spoil: (customer: string) =>
        env.DB.prepare(
          `UPDATE billing_profiles SET ${DIRECT_DEBIT.map((c) => `${c} = NULL`).join(", ")} WHERE customer_id = ?`,
        ).bind(customer),
      names: DIRECT_DEBIT,
    },
    ...DIRECT_DEBIT.map((column) => ({
      lacks: `${column} (direct_debit)`,
      payment: "direct_debit",
      spoil: (customer: string) =>
        env.DB.prepare(`UPDATE billing_profiles SET ${column} = NULL WHERE customer_id = ?`).bind(customer),
      names: [column],
    })),
  ];

  const ACTIONS = [
    {
      action: "POST /invoices",
      from: "submitted",
      send: (auth: string, id: string) => call("/invoices", { token: auth, json: { order_id: id } }),
      success: 201,
    },
    {
      action: "start_production",
      from: "submitted",
      send: (auth: string, id: string) => post(`/card_orders/${id}/start_production`, auth),
      success: 200,
    },
    {
      action: "deliver",
      from: "in_production",
      send: (auth: string, id: string) => post(`/card_orders/${id}/deliver`, auth),
      success: 200,
    },
  ] as const;

  const cases = PROFILES.flatMap((profile) => ACTIONS.map((action) => ({ ...profile, ...action })));

  it.each(cases)(
    "lacking $lacks, $action answers 409 and changes nothing",
    async ({ payment, spoil, names, from, send, success }) => {
      const auth = await token();
      const customer = customerOfToken(auth);
      const order = await orderIn(auth, from, { order: { ...newCardOrder, payment_method: payment } });
      await spoil(customer).run();
      const before = {
        order: await get(`/card_orders/${order.id}`, auth),
        shown: await get("/invoices", auth),
        invoices: await count("invoices", customer),
        events: await count("events", customer),
        number: await lastNumber("INV", Number(businessDay().slice(0, 4))),
      };
      const body = await expectError(await send(auth, order.id), 409, { code: "conflict" });
      for (const name of names) expect(body.errors[0].detail).toContain(name);
      expect({
        order: await get(`/card_orders/${order.id}`, auth),
        shown: await get("/invoices", auth),
        invoices: await count("invoices", customer),
        events: await count("events", customer),
        number: await lastNumber("INV", Number(businessDay().slice(0, 4))),
      }).toStrictEqual(before);

      // Once the profile is whole again, the same request issues the invoice.
      await storeBillingProfile(auth);
      expect((await send(auth, order.id)).status).toBe(success);
    },
  );

  it("a bank_transfer order needs no direct-debit data: its invoices are issued", async () => {
    const auth = await token();
    await storeBillingProfile(auth, {
      direct_debit_iban: null,
      direct_debit_bic: null,
      direct_debit_mandate_reference: null,
      direct_debit_mandate_signed_on: null,
    });
    const order = await orderIn(auth, "submitted");
    await issue(auth, order.id);
    await ok(`/card_orders/${order.id}/start_production`, auth);
    const delivered = await ok(`/card_orders/${order.id}/deliver`, auth);
    expect(delivered.shipping_invoice).not.toBeNull();
  });

  it("submit of an order whose customer's profile was stored without an email answers 409 naming it; stays a draft", async () => {
    const auth = await token();
    await storeBillingProfile(auth, { email: null });
    const order = await createCardOrder(auth);
    await addEntry(auth, order.id);
    const draft = await get(`/card_orders/${order.id}`, auth);
    const body = await expectError(await post(`/card_orders/${order.id}/submit`, auth), 409, { code: "conflict" });
    expect(body.errors[0].detail).toContain("email");
    expect(await get(`/card_orders/${order.id}`, auth)).toStrictEqual(draft);
  });
});

describe("customer text an e-invoice cannot carry is refused: 422 with its pointer (docs/api.md part 14)", () => {
  const refused = (response: Response, ...pointers: string[]) =>
    expectError(response, 422, ...pointers.map((pointer) => ({ code: "validation_failed", source: { pointer } })));

  it('the red team\'s reproduction: POST /invoices {"reference": "\\u0001"} is 422 /reference; nothing is stored', async () => {
    const auth = await token();
    const customer = customerOfToken(auth);
    const order = await createCardOrder(auth);
    await addEntry(auth, order.id);
    const submitted = await ok(`/card_orders/${order.id}/submit`, auth);
    const number = await lastNumber("INV", Number(businessDay().slice(0, 4)));
    const events = await count("events", customer);
    await refused(
      await call("/invoices", { token: auth, json: { order_id: order.id, reference: "\u0001" } }),
      "/reference",
    );
    expect(await count("invoices", customer)).toBe(0);
    expect(await count("events", customer)).toBe(events);
    expect(await lastNumber("INV", Number(businessDay().slice(0, 4)))).toBe(number);
    expect(await get(`/card_orders/${order.id}`, auth)).toStrictEqual(submitted);
    expect(submitted.invoice).toBeNull();
  });

  it.each([
    ["U+0001", "\u0001"],
    ["U+FFFE", "\uFFFE"],
    ["U+000B", "\u000B"],
    ["U+000C", "x\u000Cy"],
    ["U+0000", "PO\u0000"],
    ["U+0008", "\u0008PO"],
    ["U+001F", "P\u001FO"],
    ["U+FFFF", "\uFFFF"],
  ])("POST /invoices with %s in reference: 422 /reference, no invoice", async (_, reference) => {
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    await refused(await call("/invoices", { token: auth, json: { order_id: order.id, reference } }), "/reference");
    expect(await count("invoices", customerOfToken(auth))).toBe(0);
  });

  it.each([
    ["description", "\u0000"],
    ["description", "Karten\u001F"],
    ["invoice_reference", "\u0000"],
    ["invoice_reference", "PO-\u001F1"],
    ["cost_center", "\u0000CC"],
    ["cost_center", "\u001F"],
    ["description", "\uFFFE"],
    ["cost_center", "\u000B"],
  ])("POST /card_orders with %s %j: 422 on its pointer, no order", async (field, text) => {
    const auth = await token();
    await refused(await call("/card_orders", { token: auth, json: { ...newCardOrder, [field]: text } }), `/${field}`);
    expect(await count("card_orders", customerOfToken(auth))).toBe(0);
  });

  it("POST /card_orders with all three fields unusable: one error each", async () => {
    const auth = await token();
    const body = await expectJson(
      await call("/card_orders", {
        token: auth,
        json: { ...newCardOrder, description: "\u0000", invoice_reference: "\u001F", cost_center: "\uFFFF" },
      }),
      422,
      expect.anything(),
    );
    expect(body.errors.map((error: any) => [error.code, error.source.pointer]).toSorted()).toStrictEqual([
      ["validation_failed", "/cost_center"],
      ["validation_failed", "/description"],
      ["validation_failed", "/invoice_reference"],
    ]);
  });

  it.each([
    ["U+0007", "owner\u0007"],
    ["U+FFFE", "\uFFFE"],
    ["U+000C", "\u000C"],
  ])("POST entries with %s in voucher_owner_id: 422 /voucher_owner_id, no entry", async (_, voucherOwnerId) => {
    const auth = await token();
    const order = await createCardOrder(auth);
    await refused(
      await call(`/card_orders/${order.id}/entries`, {
        token: auth,
        json: { ...newEntry, voucher_owner_id: voucherOwnerId },
      }),
      "/voucher_owner_id",
    );
    expect(await get(`/card_orders/${order.id}`, auth)).toStrictEqual(order);
    const { results } = await env.DB.prepare("SELECT id FROM card_order_entries WHERE order_id = ?")
      .bind(order.id)
      .all();
    expect(results).toStrictEqual([]);
  });

  // Tab, line feed and carriage return are XML; so are U+007F..U+009F, U+FFFD and astral characters.
  const CARRIABLE = ["line 1\nline 2\r\n\tindented", "PO\t42\r", "\u007F\u0085\uFFFD😀"];

  it.each(CARRIABLE)("%j is accepted in every such field and returned exactly", async (text) => {
    const auth = await token();
    const fields = { description: text, invoice_reference: `${text}-r`, cost_center: `${text}-c` };
    const order = await createCardOrder(auth, { ...newCardOrder, ...fields });
    expect(order).toMatchObject(fields);
    const entry = await addEntry(auth, order.id, { ...newEntry, voucher_owner_id: text });
    expect(entry.voucher_owner_id).toBe(text);
    expect((await get(`/card_orders/${order.id}/entries`, auth))[0].voucher_owner_id).toBe(text);
    await ok(`/card_orders/${order.id}/submit`, auth);
    const invoice = await createInvoice(auth, order.id, `${text}-i`);
    expect(invoice).toMatchObject({ reference: `${text}-i`, cost_center: `${text}-c` });
    expect(await get(`/invoices/${invoice.id}`, auth)).toMatchObject({
      reference: `${text}-i`,
      cost_center: `${text}-c`,
    });
    expect(await get(`/card_orders/${order.id}`, auth)).toMatchObject(fields);
    const producing = await ok(`/card_orders/${order.id}/start_production`, auth);
    expect(await get(`/invoices/${producing.production_invoice.id}`, auth)).toMatchObject({
      reference: `${text}-r`,
      cost_center: `${text}-c`,
    });
  });
});
