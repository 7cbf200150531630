import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { call, expectError, token, unique } from "./support/api";
import { backOffice, credit, invoiceOf, processed, read, rfReference } from "./support/payments";
import { queued, statementsQueued } from "./support/queue";

// docs/api.md part 18 (CONTRACT part 18, "Charges are paid after the invoice"): a payment goes to the
// open amount first, then to the charges the latest reminder claimed. A reminder is simulated by setting
// invoices.charges_amount in D1, as the dunning run writes it.

beforeEach(() => {
  queued.take();
  statementsQueued.take();
});

const customer = async () => token({ customer_id: unique("customer") });

/** The latest reminder claimed `cents` of interest and fees on the invoice. */
const charge = (invoiceId: string, cents: number) =>
  env.DB.prepare("UPDATE invoices SET charges_amount = ? WHERE id = ?").bind(cents, invoiceId).run();

const balanceOf = (auth: string, id: string) => read(auth, `/invoices/${id}/balance`);

const allocate = async (transactionId: string, body: unknown) =>
  call(`/bank_transactions/${transactionId}/allocations`, { token: await backOffice(), json: body });

describe("matching: the named invoice takes its open amount, then its unpaid charges", () => {
  it("a transfer of more than open plus charges: both paid, the rest overpaid", async () => {
    const auth = await customer();
    const invoice = await invoiceOf(auth, "100.00");
    await charge(invoice.id, 4540);
    const { transactions } = await processed(await backOffice(), [
      credit("160.00", { structuredReference: rfReference(invoice.number) }),
    ]);
    expect(transactions[0]).toMatchObject({ state: "overpaid", allocated_amount: "145.40", unapplied_amount: "14.60" });
    expect(await balanceOf(auth, invoice.id)).toEqual({
      type: "invoice_balance",
      invoice_id: invoice.id,
      payment_reference: rfReference(invoice.number),
      gross_amount: "100.00",
      allocated_amount: "145.40",
      open_amount: "0.00",
      charges_amount: "45.40",
      charges_open_amount: "0.00",
    });
    expect((await read(auth, `/invoices/${invoice.id}`)).state).toBe("paid");
    const payments = await read(auth, `/invoices/${invoice.id}/payments`);
    expect(payments.map((p: any) => p.amount)).toEqual(["145.40"]);
  });

  it("a transfer of the open amount and part of the charges: paid, the rest of the charges open", async () => {
    const auth = await customer();
    const invoice = await invoiceOf(auth, "100.00");
    await charge(invoice.id, 4000);
    const { transactions } = await processed(await backOffice(), [
      credit("120.00", { unstructured: [`Rechnung ${invoice.number}`] }),
    ]);
    expect(transactions[0]).toMatchObject({ state: "matched", allocated_amount: "120.00" });
    expect(await balanceOf(auth, invoice.id)).toMatchObject({
      allocated_amount: "120.00",
      open_amount: "0.00",
      charges_amount: "40.00",
      charges_open_amount: "20.00",
    });
    expect((await read(auth, `/invoices/${invoice.id}`)).state).toBe("paid");
  });

  it("a transfer short of the open amount: the invoice stays open, the charges wait", async () => {
    const auth = await customer();
    const invoice = await invoiceOf(auth, "100.00");
    await charge(invoice.id, 4000);
    await processed(await backOffice(), [credit("60.00", { structuredReference: rfReference(invoice.number) })]);
    expect(await balanceOf(auth, invoice.id)).toMatchObject({
      allocated_amount: "60.00",
      open_amount: "40.00",
      charges_open_amount: "40.00",
    });
    expect((await read(auth, `/invoices/${invoice.id}`)).state).toBe("open");
  });

  it("a transfer naming a paid invoice with unpaid charges is not matched to it (rule 2 names open invoices)", async () => {
    const auth = await customer();
    const invoice = await invoiceOf(auth, "100.00");
    await charge(invoice.id, 4000);
    await processed(await backOffice(), [credit("100.00", { structuredReference: rfReference(invoice.number) })]);
    const { transactions } = await processed(await backOffice(), [
      credit("40.00", { structuredReference: rfReference(invoice.number) }),
    ]);
    expect(transactions[0]).toMatchObject({ state: "unmatched", allocated_amount: "0.00" });
    expect(await balanceOf(auth, invoice.id)).toMatchObject({ charges_open_amount: "40.00" });
  });
});

describe("a person's allocation: up to the open amount plus the unpaid charges", () => {
  it("to a paid invoice with unpaid charges; 409 beyond them; it stays paid", async () => {
    const customerId = unique("customer");
    const auth = await token({ customer_id: customerId });
    const invoice = await invoiceOf(auth, "100.00");
    await charge(invoice.id, 4000);
    const office = await backOffice();
    await processed(office, [credit("100.00", { structuredReference: rfReference(invoice.number) })]);
    const { transactions } = await processed(office, [credit("50.00")]);
    const tx = transactions[0];
    await expectError(await allocate(tx.id, { invoice_id: invoice.id, amount: "40.01" }), 409, {
      code: "conflict",
      detail: `Invoice ${invoice.number} has 40.00 open (40.00 of it charges), less than 40.01.`,
    });
    const made = await allocate(tx.id, { invoice_id: invoice.id, amount: "40.00" });
    expect(made.status).toBe(201);
    expect(((await made.json()) as any).data[0]).toMatchObject({ invoice_id: invoice.id, amount: "40.00" });
    expect(await balanceOf(auth, invoice.id)).toMatchObject({
      allocated_amount: "140.00",
      open_amount: "0.00",
      charges_open_amount: "0.00",
    });
    const after = await read(auth, `/invoices/${invoice.id}`);
    expect(after.state).toBe("paid");
    await expectError(await allocate(tx.id, { invoice_id: invoice.id, amount: "0.01" }), 409, {
      code: "conflict",
      detail: `Invoice ${invoice.number} is paid, not open.`,
    });
    // The allocation's event; no second invoice.paid.
    const { results } = await env.DB.prepare("SELECT type FROM events WHERE customer_id = ? ORDER BY created_at, id")
      .bind(customerId)
      .all<{ type: string }>();
    expect(results.filter((e) => e.type === "invoice.paid")).toHaveLength(1);
    expect(results.filter((e) => e.type === "payment.received")).toHaveLength(2);
  });

  it("to an open invoice: the open amount and the charges in one allocation", async () => {
    const auth = await customer();
    const invoice = await invoiceOf(auth, "10.00");
    await charge(invoice.id, 500);
    const { transactions } = await processed(await backOffice(), [credit("30.00")]);
    await expectError(await allocate(transactions[0].id, { invoice_id: invoice.id, amount: "15.01" }), 409, {
      code: "conflict",
      detail: `Invoice ${invoice.number} has 15.00 open (5.00 of it charges), less than 15.01.`,
    });
    expect((await allocate(transactions[0].id, { invoice_id: invoice.id, amount: "15.00" })).status).toBe(201);
    expect(await balanceOf(auth, invoice.id)).toMatchObject({ open_amount: "0.00", charges_open_amount: "0.00" });
    expect((await read(auth, `/invoices/${invoice.id}`)).state).toBe("paid");
  });
});
