import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it, vi } from "vitest";
import {
  businessDay,
  call,
  expectError,
  expectJson,
  ISO_MS,
  orderIn,
  singlePage,
  token,
  unique,
  UUID,
} from "./support/api";
import { type CallRecord, FaultyD1 } from "./support/faulty-d1";
import {
  backOffice,
  credit,
  invoiceOf,
  read,
  rfReference,
  statementFile,
  toCents,
  toMoney,
  transactionsOf,
  upload,
} from "./support/payments";
import { drain, drainStatements, queued, statementsQueued } from "./support/queue";
import { holdsMod97 } from "./support/check-digits.mjs";

// docs/api.md part 15 (CONTRACT part 15): what a transaction pays. A person allocates what the matching
// left unapplied (POST /bank_transactions/{id}/allocations); the customer sees each invoice's payments
// and balance; `pay` records a manual payment; an invoice with payments is not cancelled; every
// allocation is one atomic batch with its events, payment.received before invoice.paid, each the
// invoice's customer's, also when a person, a statement and `pay` meet on one invoice.

beforeEach(() => {
  queued.take();
  statementsQueued.take();
});

/** A customer: its id and token (every scope). */
const customer = async () => {
  const id = unique("customer");
  return { id, auth: await token({ customer_id: id }) };
};

/** Transfers of `amounts` without a reference (each unmatched), as the back office sees them, in file order. */
async function unmatched(...amounts: string[]): Promise<any[]> {
  const office = await backOffice();
  const [statement] = await upload(office, statementFile(amounts.map((amount) => credit(amount))));
  await drainStatements();
  return (await transactionsOf(office, statement.id)).reverse();
}

/** POST /bank_transactions/{id}/allocations as the back office. */
const allocate = async (transactionId: string, body: unknown, auth?: string) =>
  call(`/bank_transactions/${transactionId}/allocations`, { token: auth ?? (await backOffice()), json: body });

const balanceOf = (auth: string, invoiceId: string) => read(auth, `/invoices/${invoiceId}/balance`);
const paymentsOf = (auth: string, invoiceId: string) => read(auth, `/invoices/${invoiceId}/payments`);
const transaction = async (id: string) => read(await backOffice(), `/bank_transactions/${id}`);

/** The events stored for `customerId`, oldest first, as [type, data]. */
async function eventsOf(customerId: string): Promise<[string, any][]> {
  const { results } = await env.DB.prepare(
    "SELECT type, data FROM events WHERE customer_id = ? ORDER BY created_at, id",
  )
    .bind(customerId)
    .all<{ type: string; data: string }>();
  return results.map((row) => [row.type, JSON.parse(row.data)]);
}

/** Only the payment events of `eventsOf`. */
const paymentEventsOf = async (customerId: string) =>
  (await eventsOf(customerId)).filter(([type]) => type === "payment.received" || type === "invoice.paid");

/** What the database holds of payments: their count and sum, and the invoices' allocated amounts. */
const money = async () =>
  (await env.DB.prepare(
    "SELECT (SELECT count(*) FROM payments) AS payments, (SELECT coalesce(sum(amount), 0) FROM payments) AS paid, " +
      "(SELECT coalesce(sum(allocated_amount), 0) FROM invoices) AS allocated, (SELECT count(*) FROM events) AS events, " +
      "(SELECT count(*) FROM bank_transactions) AS transactions",
  ).first())!;

/** Runs `hook` just before each of the first `times` batches whose statements `when` picks reach the database. */
class BeforeBatch extends FaultyD1 {
  private hooked = 0;

  constructor(
    private readonly when: (sql: string[]) => boolean,
    private readonly hook: () => Promise<void>,
    private readonly times = 1,
  ) {
    super(env.DB);
  }

  override async call<R>(kind: CallRecord["kind"], sql: string[], run: () => Promise<R>): Promise<R> {
    if (this.hooked < this.times && kind === "batch" && this.when(sql)) {
      this.hooked++;
      await this.hook();
    }
    return super.call(kind, sql, run);
  }
}
const updatesInvoices = (sql: string[]) => sql.some((s) => s.startsWith('update "invoices"'));
const storesTransaction = (sql: string[]) => sql.some((s) => s.startsWith('insert into "bank_transactions"'));

describe("the payment reference: every invoice's ISO 11649 RF reference", () => {
  it("RF, check digits by ISO 7064 MOD 97-10 over the body and RF00, the number without hyphens", async () => {
    // The docs' own example, against this file's reckoning.
    expect(rfReference("INV-2026-000004")).toBe("RF13INV2026000004");
    const { auth } = await customer();
    const invoices = [
      await invoiceOf(auth, "1.00"),
      await invoiceOf(auth, "2.00", "direct_debit"),
      await invoiceOf(auth, "3.00"),
    ];
    for (const invoice of invoices) {
      const { payment_reference } = await balanceOf(auth, invoice.id);
      expect(payment_reference).toBe(rfReference(invoice.number));
      expect(payment_reference).toBe(`RF${payment_reference.slice(2, 4)}${invoice.number.replaceAll("-", "")}`);
      // ISO 11649's check: the first four characters moved to the end, letters as 10 to 35: mod 97 is 1.
      expect(holdsMod97(payment_reference)).toBe(true);
    }
  });
});

describe("GET /invoices/{id}/balance and /payments: the customer's own", () => {
  it("a new invoice: nothing allocated, no payments", async () => {
    const { auth } = await customer();
    const invoice = await invoiceOf(auth, "12.34");
    await expectJson(await call(`/invoices/${invoice.id}/balance`, { token: auth }), 200, {
      data: {
        type: "invoice_balance",
        invoice_id: invoice.id,
        payment_reference: rfReference(invoice.number),
        gross_amount: "12.34",
        allocated_amount: "0.00",
        open_amount: "12.34",
        charges_amount: "0.00",
        charges_open_amount: "0.00",
      },
    });
    await expectJson(
      await call(`/invoices/${invoice.id}/payments`, { token: auth }),
      200,
      expect.objectContaining({
        meta: { total_pages: 1, current_page: 1, page_size: 25, total_entries: 0 },
        data: [],
      }),
    );
  });

  it("payments oldest first, by every way they come; the balance sums them", async () => {
    const { auth } = await customer();
    const invoice = await invoiceOf(auth, "100.00");
    const office = await backOffice();
    const [statement] = await upload(
      office,
      statementFile([credit("30.00", { endToEndId: invoice.number }), credit("25.00")]),
    );
    await drainStatements();
    const [byStatement, left] = (await transactionsOf(office, statement.id)).reverse();
    const allocated = await expectJson(
      await allocate(left.id, { invoice_id: invoice.id, amount: "25.00" }),
      201,
      expect.anything(),
    );
    const paid = await call(`/invoices/${invoice.id}/pay`, { token: auth, method: "POST" });
    expect(paid.status).toBe(200);
    const payments = await paymentsOf(auth, invoice.id);
    const payment = (fields: object) => ({
      id: expect.stringMatching(UUID),
      type: "payment",
      invoice_id: invoice.id,
      invoice_number: invoice.number,
      amount: "0.00",
      method: "bank_transfer",
      bank_transaction_id: null,
      booked_on: "2026-11-20",
      returned_at: null,
      return_reason: null,
      created_at: expect.stringMatching(ISO_MS),
      ...fields,
    });
    expect(payments).toStrictEqual([
      payment({ amount: "30.00", bank_transaction_id: byStatement.id }),
      payment({ amount: "25.00", bank_transaction_id: left.id }),
      // pay: a manual payment of what was open, booked on the day of the call in BUSINESS_TIME_ZONE.
      payment({ amount: "45.00", method: "manual", booked_on: businessDay() }),
    ]);
    expect(payments[1]).toStrictEqual(allocated.data[0]);
    expect(payments.map((p: any) => p.created_at)).toStrictEqual(payments.map((p: any) => p.created_at).toSorted());
    expect(await balanceOf(auth, invoice.id)).toMatchObject({ allocated_amount: "100.00", open_amount: "0.00" });
    // One page at a time, oldest first still.
    const first = await read(auth, `/invoices/${invoice.id}/payments?page_size=2`);
    expect(first.map((p: any) => p.id)).toStrictEqual(payments.slice(0, 2).map((p: any) => p.id));
  });

  it("404 for another customer's invoice or none; 403 for the back office (no customer) and without invoices:read", async () => {
    const [x, y] = [await customer(), await customer()];
    const invoice = await invoiceOf(x.auth, "10.00");
    for (const path of [`/invoices/${invoice.id}/balance`, `/invoices/${invoice.id}/payments`]) {
      await expectError(await call(path, { token: y.auth }), 404, { code: "not_found" });
      // The back office's token with every scope, but no customer.
      await expectError(await call(path, { token: await token({ customer_id: undefined }) }), 403, {
        code: "forbidden",
        source: { header: "Authorization" },
        detail: "The access token names no customer (customer_id).",
      });
      await expectError(
        await call(path, { token: await token({ customer_id: x.id, scope: "invoices:write payments:read" }) }),
        403,
        {
          code: "forbidden",
          source: { header: "Authorization" },
          detail: "The access token lacks the scope invoices:read.",
        },
      );
    }
    for (const path of [`/invoices/${crypto.randomUUID()}/balance`, `/invoices/${crypto.randomUUID()}/payments`])
      await expectError(await call(path, { token: x.auth }), 404, { code: "not_found" });
  });
});

describe("POST /bank_transactions/{id}/allocations: a person allocates what is unapplied", () => {
  it("to invoices of any customer: 201, the payment; the transaction moves by the rule, its customer the first invoice's", async () => {
    const [x, y] = [await customer(), await customer()];
    const [a, b] = [await invoiceOf(x.auth, "30.00"), await invoiceOf(y.auth, "20.00")];
    const [tx] = await unmatched("50.00");
    expect(tx).toMatchObject({ state: "unmatched", customer: null });
    queued.take();

    const first = await allocate(tx.id, { invoice_id: a.id, amount: "10.00" });
    const body = await expectJson(
      first,
      201,
      singlePage(`/bank_transactions/${tx.id}/allocations`, [
        {
          id: expect.stringMatching(UUID),
          type: "payment",
          invoice_id: a.id,
          invoice_number: a.number,
          amount: "10.00",
          method: "bank_transfer",
          bank_transaction_id: tx.id,
          booked_on: "2026-11-20",
          returned_at: null,
          return_reason: null,
          created_at: expect.stringMatching(ISO_MS),
        },
      ]),
    );
    const payment = body.data[0];
    expect(await transaction(tx.id)).toStrictEqual({
      ...tx,
      state: "overpaid",
      allocated_amount: "10.00",
      unapplied_amount: "40.00",
      customer: x.id,
    });
    expect(await paymentsOf(x.auth, a.id)).toStrictEqual([payment]);
    expect(await balanceOf(x.auth, a.id)).toMatchObject({ allocated_amount: "10.00", open_amount: "20.00" });
    expect((await read(x.auth, `/invoices/${a.id}`)).state).toBe("open");
    // Not settled: payment.received only, the invoice's customer's, handed to the queue.
    expect(await paymentEventsOf(x.id)).toStrictEqual([["payment.received", payment]]);
    expect(queued.take().map((m: any) => [m.customerId, m.event.type, m.event.data])).toStrictEqual([
      [x.id, "payment.received", payment],
    ]);

    // The rest to y's invoice, which it settles; the transaction keeps its customer.
    const second = (
      await expectJson(await allocate(tx.id, { invoice_id: b.id, amount: "20.00" }), 201, expect.anything())
    ).data[0];
    const paidB = await read(y.auth, `/invoices/${b.id}`);
    expect(paidB).toMatchObject({ state: "paid", paid_at: second.created_at, updated_at: second.created_at });
    expect(await paymentEventsOf(y.id)).toStrictEqual([
      ["payment.received", second],
      ["invoice.paid", paidB],
    ]);
    expect(queued.take().map((m: any) => [m.customerId, m.event.type])).toStrictEqual([
      [y.id, "payment.received"],
      [y.id, "invoice.paid"],
    ]);
    expect(await transaction(tx.id)).toMatchObject({
      state: "overpaid",
      allocated_amount: "30.00",
      unapplied_amount: "20.00",
      customer: x.id,
    });
    // The last of it: matched.
    await allocate(tx.id, { invoice_id: a.id, amount: "20.00" });
    expect(await transaction(tx.id)).toMatchObject({
      state: "matched",
      allocated_amount: "50.00",
      unapplied_amount: "0.00",
    });
    expect((await read(x.auth, `/invoices/${a.id}`)).state).toBe("paid");
    // Each event reaches the customer's webhooks and event list.
    await drain();
    expect((await read(y.auth, "/events")).map((e: any) => e.type).slice(0, 2)).toStrictEqual([
      "invoice.paid",
      "payment.received",
    ]);
  });

  it("the remainder of an overpaid transfer, its customer kept", async () => {
    const [x, y] = [await customer(), await customer()];
    const [a, b] = [await invoiceOf(x.auth, "10.00"), await invoiceOf(y.auth, "5.00")];
    const office = await backOffice();
    const [statement] = await upload(office, statementFile([credit("15.00", { endToEndId: a.number })]));
    await drainStatements();
    const [tx] = await transactionsOf(office, statement.id);
    expect(tx).toMatchObject({ state: "overpaid", unapplied_amount: "5.00", customer: x.id });
    expect((await allocate(tx.id, { invoice_id: b.id, amount: "5.00" })).status).toBe(201);
    expect(await transaction(tx.id)).toMatchObject({ state: "matched", unapplied_amount: "0.00", customer: x.id });
    expect((await read(y.auth, `/invoices/${b.id}`)).state).toBe("paid");
  });

  describe("409 conflict, nothing stored", () => {
    it.each([
      [
        "more than the transaction has unapplied",
        "10.01",
        "The bank transaction has 10.00 unapplied, less than 10.01.",
      ],
      ["more than the invoice has open", "8.01", "Invoice {number} has 8.00 open, less than 8.01."],
    ])("%s", async (_, amount, detail) => {
      const { auth } = await customer();
      const invoice = await invoiceOf(auth, "8.00");
      const [tx] = await unmatched("10.00");
      const before = await money();
      await expectError(await allocate(tx.id, { invoice_id: invoice.id, amount }), 409, {
        code: "conflict",
        detail: detail.replace("{number}", invoice.number),
      });
      expect(await money()).toStrictEqual(before);
      expect(await transaction(tx.id)).toStrictEqual(tx);
    });

    it("an invoice partly paid has only its open amount", async () => {
      const { auth } = await customer();
      const invoice = await invoiceOf(auth, "8.00");
      const [tx, other] = await unmatched("5.00", "5.00");
      expect((await allocate(tx.id, { invoice_id: invoice.id, amount: "5.00" })).status).toBe(201);
      await expectError(await allocate(other.id, { invoice_id: invoice.id, amount: "3.01" }), 409, {
        code: "conflict",
        detail: `Invoice ${invoice.number} has 3.00 open, less than 3.01.`,
      });
      expect((await allocate(other.id, { invoice_id: invoice.id, amount: "3.00" })).status).toBe(201);
      expect(await balanceOf(auth, invoice.id)).toMatchObject({ allocated_amount: "8.00", open_amount: "0.00" });
    });

    it.each(["paid", "cancelled"] as const)("an invoice %s", async (state) => {
      const { auth } = await customer();
      const invoice = await invoiceOf(auth, "8.00");
      const action = state === "paid" ? "pay" : "cancel";
      expect((await call(`/invoices/${invoice.id}/${action}`, { token: auth, method: "POST" })).status).toBe(200);
      const [tx] = await unmatched("1.00");
      const before = await money();
      await expectError(await allocate(tx.id, { invoice_id: invoice.id, amount: "1.00" }), 409, {
        code: "conflict",
        detail: `Invoice ${invoice.number} is ${state}, not open.`,
      });
      expect(await money()).toStrictEqual(before);
    });

    it.each(["matched", "ignored"] as const)("a transaction %s", async (state) => {
      const { auth } = await customer();
      const [named, other] = [await invoiceOf(auth, "8.00"), await invoiceOf(auth, "8.00")];
      const office = await backOffice();
      const entry = credit("8.00", { endToEndId: named.number });
      const [statement] = await upload(
        office,
        statementFile([state === "matched" ? entry : { ...entry, status: "PDNG" }]),
      );
      await drainStatements();
      const [tx] = await transactionsOf(office, statement.id);
      expect(tx.state).toBe(state);
      const before = await money();
      await expectError(await allocate(tx.id, { invoice_id: other.id, amount: "1.00" }), 409, {
        code: "conflict",
        detail: `The bank transaction is ${state}: it has nothing unapplied to allocate.`,
      });
      expect(await money()).toStrictEqual(before);
    });
  });

  it.each([
    ["zero", "0.00"],
    ["negative", "-1.00"],
    ["with a third decimal", "1.001"],
    ["without decimals", "1"],
    ["a number, not a string", 1],
    ["above 1000000000.00", "1000000000.01"],
    ["empty", ""],
  ])("422 validation_failed on /amount for an amount %s, nothing stored", async (_, amount) => {
    const { auth } = await customer();
    const invoice = await invoiceOf(auth, "8.00");
    const [tx] = await unmatched("1.00");
    const before = await money();
    await expectError(await allocate(tx.id, { invoice_id: invoice.id, amount }), 422, {
      code: "validation_failed",
      source: { pointer: "/amount" },
    });
    expect(await money()).toStrictEqual(before);
  });

  it("the largest amount allowed is 1000000000.00 (then refused only as more than is unapplied)", async () => {
    const { auth } = await customer();
    const invoice = await invoiceOf(auth, "8.00");
    const [tx] = await unmatched("1.00");
    await expectError(await allocate(tx.id, { invoice_id: invoice.id, amount: "1000000000.00" }), 409, {
      code: "conflict",
    });
  });

  it.each([
    ["that names no invoice", () => crypto.randomUUID(), "invoice_id names no invoice."],
    ["that is no id", () => "INV-2026-000001", "invoice_id names no invoice."],
    ["missing", () => undefined, "invoice_id is required."],
  ])("422 validation_failed on /invoice_id for an invoice_id %s", async (_, invoiceId, detail) => {
    const [tx] = await unmatched("1.00");
    const before = await money();
    await expectError(await allocate(tx.id, { invoice_id: invoiceId(), amount: "1.00" }), 422, {
      code: "validation_failed",
      source: { pointer: "/invoice_id" },
      detail,
    });
    expect(await money()).toStrictEqual(before);
  });

  it("404 for a transaction that does not exist, whatever the invoice", async () => {
    const { auth } = await customer();
    const invoice = await invoiceOf(auth, "8.00");
    for (const id of [crypto.randomUUID(), "nope"])
      for (const invoiceId of [invoice.id, crypto.randomUUID()])
        await expectError(await allocate(id, { invoice_id: invoiceId, amount: "1.00" }), 404, { code: "not_found" });
  });

  it("under an Idempotency-Key the same allocation again is the first answer, allocated once", async () => {
    const { auth } = await customer();
    const invoice = await invoiceOf(auth, "10.00");
    const [tx] = await unmatched("10.00");
    const [office, key] = [await backOffice(), unique("key")];
    const post = () =>
      call(`/bank_transactions/${tx.id}/allocations`, {
        token: office,
        json: { invoice_id: invoice.id, amount: "4.00" },
        headers: { "Idempotency-Key": key },
      });
    const first = await expectJson(await post(), 201, expect.anything());
    const again = await post();
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    await expectJson(again, 201, first);
    expect(await paymentsOf(auth, invoice.id)).toStrictEqual(first.data);
    expect(await transaction(tx.id)).toMatchObject({ allocated_amount: "4.00", unapplied_amount: "6.00" });
  });

  it("two allocations of one transaction at once take no more than it has", async () => {
    const { auth } = await customer();
    const [a, b] = [await invoiceOf(auth, "10.00"), await invoiceOf(auth, "10.00")];
    const [tx] = await unmatched("10.00");
    const office = await backOffice();
    const answers = await Promise.all([
      allocate(tx.id, { invoice_id: a.id, amount: "10.00" }, office),
      allocate(tx.id, { invoice_id: b.id, amount: "10.00" }, office),
    ]);
    expect(answers.map((r) => r.status).toSorted()).toStrictEqual([201, 409]);
    expect(await transaction(tx.id)).toMatchObject({ state: "matched", allocated_amount: "10.00" });
    const opens = [(await balanceOf(auth, a.id)).open_amount, (await balanceOf(auth, b.id)).open_amount];
    expect(opens.toSorted()).toStrictEqual(["0.00", "10.00"]);
  });

  it("two allocations to one invoice at once take no more than it has open", async () => {
    const { auth } = await customer();
    const invoice = await invoiceOf(auth, "10.00");
    const [t1, t2] = await unmatched("10.00", "10.00");
    const office = await backOffice();
    const answers = await Promise.all([
      allocate(t1.id, { invoice_id: invoice.id, amount: "10.00" }, office),
      allocate(t2.id, { invoice_id: invoice.id, amount: "10.00" }, office),
    ]);
    expect(answers.map((r) => r.status).toSorted()).toStrictEqual([201, 409]);
    expect(await balanceOf(auth, invoice.id)).toMatchObject({ allocated_amount: "10.00", open_amount: "0.00" });
    expect(await paymentsOf(auth, invoice.id)).toHaveLength(1);
  });

  it("a database that fails: 503, nothing of the allocation stored", async () => {
    const { auth } = await customer();
    const invoice = await invoiceOf(auth, "10.00");
    const [tx] = await unmatched("10.00");
    queued.take();
    const before = await money();
    // The allocation's batch (a payment, the invoice, the transaction, the events) fails on its way.
    const failing = new (class extends FaultyD1 {
      override async call<R>(kind: CallRecord["kind"], sql: string[], run: () => Promise<R>): Promise<R> {
        if (kind === "batch" && updatesInvoices(sql)) throw new Error("D1_ERROR: Network connection lost.");
        return super.call(kind, sql, run);
      }
    })(env.DB);
    const response = await call(`/bank_transactions/${tx.id}/allocations`, {
      token: await backOffice(),
      json: { invoice_id: invoice.id, amount: "10.00" },
      env: { DB: failing.binding },
    });
    await expectError(response, 503, { code: "unavailable" });
    expect(await money()).toStrictEqual(before);
    expect(queued.messages).toStrictEqual([]);
  });
});

describe("pay: a manual payment of the open amount", () => {
  it("after a bank payment: the rest, method manual, no transaction, booked today; payment.received then invoice.paid", async () => {
    const { id, auth } = await customer();
    const invoice = await invoiceOf(auth, "50.00");
    const office = await backOffice();
    await upload(office, statementFile([credit("20.00", { endToEndId: invoice.number })]));
    await drainStatements();
    queued.take();
    const response = await call(`/invoices/${invoice.id}/pay`, { token: auth, method: "POST" });
    const paid = (await expectJson(response, 200, expect.anything())).data;
    expect(paid).toMatchObject({ state: "paid", paid_at: paid.updated_at });
    const [bank, manual] = await paymentsOf(auth, invoice.id);
    expect(manual).toStrictEqual({
      id: expect.stringMatching(UUID),
      type: "payment",
      invoice_id: invoice.id,
      invoice_number: invoice.number,
      amount: "30.00",
      method: "manual",
      bank_transaction_id: null,
      booked_on: businessDay(),
      returned_at: null,
      return_reason: null,
      created_at: expect.stringMatching(ISO_MS),
    });
    expect(await balanceOf(auth, invoice.id)).toMatchObject({ allocated_amount: "50.00", open_amount: "0.00" });
    expect(await paymentEventsOf(id)).toStrictEqual([
      ["payment.received", bank],
      ["payment.received", manual],
      ["invoice.paid", paid],
    ]);
    expect(queued.take().map((m: any) => [m.customerId, m.event.type])).toStrictEqual([
      [id, "payment.received"],
      [id, "invoice.paid"],
    ]);
  });
});

describe("an invoice with payments is not cancelled, nor is its order while it is open", () => {
  it("409 conflict for the invoice and its order, nothing changed; without payments both may be cancelled", async () => {
    const { auth } = await customer();
    const order = await orderIn(auth, "submitted");
    const invoice = (
      (await call("/invoices", { token: auth, json: { order_id: order.id } }).then((r) => r.json())) as any
    ).data[0];
    const office = await backOffice();
    await upload(office, statementFile([credit("0.01", { endToEndId: invoice.number })]));
    await drainStatements();
    const before = await money();
    const shown = await read(auth, `/invoices/${invoice.id}`);
    await expectError(await call(`/invoices/${invoice.id}/cancel`, { token: auth, method: "POST" }), 409, {
      code: "conflict",
      detail: `Invoice ${invoice.number} has payments of 0.01 allocated to it; an invoice that is partly paid cannot be cancelled.`,
    });
    await expectError(await call(`/card_orders/${order.id}/cancel`, { token: auth, method: "POST" }), 409, {
      code: "conflict",
    });
    expect(await read(auth, `/invoices/${invoice.id}`)).toStrictEqual(shown);
    expect((await read(auth, `/card_orders/${order.id}`)).state).toBe("submitted");
    expect(await money()).toStrictEqual(before);
    // The control: another order's invoice without payments is cancelled.
    const other = await invoiceOf(auth, "1.00");
    expect((await call(`/invoices/${other.id}/cancel`, { token: auth, method: "POST" })).status).toBe(200);
  });
});

describe("events: payment.received (the payment) before invoice.paid (the invoice), each the invoice's customer's", () => {
  it("a transfer that pays two customers' invoices makes the events of each, in one batch with the transaction", async () => {
    const [x, y] = [await customer(), await customer()];
    const [a, b] = [await invoiceOf(x.auth, "10.00"), await invoiceOf(y.auth, "20.00")];
    const office = await backOffice();
    queued.take();
    const [statement] = await upload(
      office,
      statementFile([credit("25.00", { unstructured: [`${a.number} ${b.number}`] })]),
    );
    await drainStatements();
    const [tx] = await transactionsOf(office, statement.id);
    const [paymentA] = await paymentsOf(x.auth, a.id);
    const [paymentB] = await paymentsOf(y.auth, b.id);
    const paidA = await read(x.auth, `/invoices/${a.id}`);
    expect(paidA).toMatchObject({ state: "paid", paid_at: tx && paymentA.created_at });
    expect(await paymentEventsOf(x.id)).toStrictEqual([
      ["payment.received", paymentA],
      ["invoice.paid", paidA],
    ]);
    expect(await paymentEventsOf(y.id)).toStrictEqual([["payment.received", paymentB]]);
    expect(paymentB).toMatchObject({ amount: "15.00", bank_transaction_id: tx.id });
    expect(queued.take().map((m: any) => [m.customerId, m.event.type, m.event.data])).toStrictEqual([
      [x.id, "payment.received", paymentA],
      [x.id, "invoice.paid", paidA],
      [y.id, "payment.received", paymentB],
    ]);
    // Through the API: each customer's own, newest first.
    expect((await read(x.auth, "/events")).slice(0, 2).map((e: any) => [e.type, e.data])).toStrictEqual([
      ["invoice.paid", paidA],
      ["payment.received", paymentA],
    ]);
    expect((await read(y.auth, "/events?type=payment.received")).map((e: any) => e.data)).toStrictEqual([paymentB]);
  });

  it("the events of a statement's transactions follow one another in the order of the transactions", async () => {
    const { id, auth } = await customer();
    const invoices: any[] = [];
    for (let i = 0; i < 4; i++) invoices.push(await invoiceOf(auth, `${i + 1}.00`));
    const office = await backOffice();
    // Each transfer settles two invoices: four events each, one millisecond apart.
    await upload(
      office,
      statementFile([
        credit("3.00", { unstructured: [`${invoices[0].number} ${invoices[1].number}`] }),
        credit("7.00", { unstructured: [`${invoices[2].number} ${invoices[3].number}`] }),
      ]),
    );
    // The clock stands still while the statement is read, as it nearly does when its transactions follow
    // one another within a few milliseconds: the order must not depend on how fast the database is.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 1000 });
    try {
      await drainStatements();
    } finally {
      vi.useRealTimers();
    }
    const events = (await read(auth, "/events?type=invoice.paid")).concat(
      await read(auth, "/events?type=payment.received"),
    );
    const inOrder = events.toSorted((p: any, q: any) =>
      p.created_at < q.created_at ? -1 : p.created_at > q.created_at ? 1 : 0,
    );
    // Oldest first: the first transaction's four, then the second's; no two at the same moment.
    expect(inOrder.map((e: any) => [e.type, e.data.invoice_number ?? e.data.number])).toStrictEqual(
      invoices.flatMap((invoice) => [
        ["payment.received", invoice.number],
        ["invoice.paid", invoice.number],
      ]),
    );
    expect(new Set(events.map((e: any) => e.created_at)).size).toBe(8);
    expect(await paymentEventsOf(id)).toHaveLength(8);
  });
});

describe("atomicity: a transaction's matching is one batch with its events", () => {
  it("its batch fails: nothing of the transaction is stored, no payment, no event; the retry stores it once", async () => {
    const { id, auth } = await customer();
    const invoice = await invoiceOf(auth, "10.00");
    const office = await backOffice();
    const [statement] = await upload(office, statementFile([credit("10.00", { endToEndId: invoice.number })]));
    queued.take();
    const before = await money();
    const failing = new (class extends FaultyD1 {
      override async call<R>(kind: CallRecord["kind"], sql: string[], run: () => Promise<R>): Promise<R> {
        if (kind === "batch" && storesTransaction(sql)) throw new Error("D1_ERROR: Network connection lost.");
        return super.call(kind, sql, run);
      }
    })(env.DB);
    const [outcome] = await drainStatements({ DB: failing.binding });
    expect(outcome!.retried).toBeDefined();
    expect(await money()).toStrictEqual(before);
    expect(queued.messages).toStrictEqual([]);
    expect(await balanceOf(auth, invoice.id)).toMatchObject({ allocated_amount: "0.00" });
    expect(await transactionsOf(office, statement.id)).toStrictEqual([]);

    statementsQueued.messages.push(outcome!.body);
    await drainStatements();
    expect(await paymentEventsOf(id)).toHaveLength(2);
    expect(await paymentsOf(auth, invoice.id)).toHaveLength(1);
  });

  it("a person's allocation between a statement's reads and its batch: the transfer is matched again against what is now true", async () => {
    const { auth } = await customer();
    const invoice = await invoiceOf(auth, "100.00");
    const [byHand] = await unmatched("60.00");
    const office = await backOffice();
    const [statement] = await upload(office, statementFile([credit("100.00", { endToEndId: invoice.number })]));
    const meanwhile = new BeforeBatch(storesTransaction, async () => {
      expect((await allocate(byHand.id, { invoice_id: invoice.id, amount: "60.00" })).status).toBe(201);
    });
    const outcomes = await drainStatements({ DB: meanwhile.binding });
    expect(outcomes.map((o) => [o.acked, o.retried])).toStrictEqual([[true, undefined]]);
    const [tx] = await transactionsOf(office, statement.id);
    expect(tx).toMatchObject({ state: "overpaid", allocated_amount: "40.00", unapplied_amount: "60.00" });
    expect(await balanceOf(auth, invoice.id)).toMatchObject({ allocated_amount: "100.00", open_amount: "0.00" });
    // The person's payment was made first, the statement's when it was matched again, which settled the
    // invoice: oldest first, paid_at (rule 4: the moment of the match) not before the person's payment.
    const payments = await paymentsOf(auth, invoice.id);
    const { paid_at } = await read(auth, `/invoices/${invoice.id}`);
    expect(payments.map((p: any) => p.amount)).toStrictEqual(["60.00", "40.00"]);
    expect(payments.every((p: any) => p.created_at <= paid_at)).toBe(true);
  });

  it("a change meanwhile three times over: the run is retried, nothing of the transaction stored; the redelivery matches it", async () => {
    const { auth } = await customer();
    const invoice = await invoiceOf(auth, "100.00");
    const cents = await unmatched("0.01", "0.01", "0.01");
    const office = await backOffice();
    const [statement] = await upload(office, statementFile([credit("100.00", { endToEndId: invoice.number })]));
    let i = 0;
    const meanwhile = new BeforeBatch(
      storesTransaction,
      async () => {
        expect((await allocate(cents[i++].id, { invoice_id: invoice.id, amount: "0.01" })).status).toBe(201);
      },
      3,
    );
    const [outcome] = await drainStatements({ DB: meanwhile.binding });
    expect(i).toBe(3);
    expect(outcome).toMatchObject({ acked: false, retried: { delaySeconds: 10 } });
    expect(await transactionsOf(office, statement.id)).toStrictEqual([]);
    expect(await balanceOf(auth, invoice.id)).toMatchObject({ allocated_amount: "0.03" });

    statementsQueued.messages.push(outcome!.body);
    await drainStatements();
    const [tx] = await transactionsOf(office, statement.id);
    expect(tx).toMatchObject({ state: "overpaid", allocated_amount: "99.97", unapplied_amount: "0.03" });
    expect(await balanceOf(auth, invoice.id)).toMatchObject({ allocated_amount: "100.00", open_amount: "0.00" });
  });

  it("pay between a statement's reads and its batch: the transfer is matched again, and the paid invoice takes nothing", async () => {
    const { auth } = await customer();
    const invoice = await invoiceOf(auth, "100.00");
    const office = await backOffice();
    const [statement] = await upload(office, statementFile([credit("100.00", { endToEndId: invoice.number })]));
    const meanwhile = new BeforeBatch(storesTransaction, async () => {
      expect((await call(`/invoices/${invoice.id}/pay`, { token: auth, method: "POST" })).status).toBe(200);
    });
    await drainStatements({ DB: meanwhile.binding });
    const [tx] = await transactionsOf(office, statement.id);
    expect(tx).toMatchObject({ state: "unmatched", allocated_amount: "0.00", customer: null });
    expect((await paymentsOf(auth, invoice.id)).map((p: any) => [p.method, p.amount])).toStrictEqual([
      ["manual", "100.00"],
    ]);
  });

  /** A statement's transfer of `amount` naming `invoice`, uploaded, to be matched when `drainStatements` runs. */
  async function pendingTransfer(invoice: any, amount: string) {
    const office = await backOffice();
    await upload(office, statementFile([credit(amount, { endToEndId: invoice.number })]));
  }

  it("a statement's payment between pay's read and its batch: pay takes no more than is open", async () => {
    const { auth } = await customer();
    const invoice = await invoiceOf(auth, "100.00");
    await pendingTransfer(invoice, "40.00");
    const meanwhile = new BeforeBatch(updatesInvoices, async () => void (await drainStatements()));
    const response = await call(`/invoices/${invoice.id}/pay`, {
      token: auth,
      method: "POST",
      env: { DB: meanwhile.binding },
    });
    expect([200, 409]).toContain(response.status);
    const payments = await paymentsOf(auth, invoice.id);
    const balance = await balanceOf(auth, invoice.id);
    // Whatever pay answered, the invoice's allocated amount is the sum of its payments, and never above its gross.
    expect(toMoney(payments.reduce((sum: number, p: any) => sum + toCents(p.amount), 0))).toBe(
      balance.allocated_amount,
    );
    expect(toCents(balance.allocated_amount)).toBeLessThanOrEqual(toCents(balance.gross_amount));
  });

  it("a statement's payment between cancel's read and its batch: the invoice with payments is not cancelled", async () => {
    const { auth } = await customer();
    const invoice = await invoiceOf(auth, "100.00");
    await pendingTransfer(invoice, "40.00");
    const meanwhile = new BeforeBatch(updatesInvoices, async () => void (await drainStatements()));
    const response = await call(`/invoices/${invoice.id}/cancel`, {
      token: auth,
      method: "POST",
      env: { DB: meanwhile.binding },
    });
    expect((await paymentsOf(auth, invoice.id)).map((p: any) => p.amount)).toStrictEqual(["40.00"]);
    expect((await read(auth, `/invoices/${invoice.id}`)).state).toBe("open");
    expect(response.status).toBe(409);
  });
});
