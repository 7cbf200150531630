import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { call, expectJson, ISO_MS, storeBillingProfile, token, unique, UUID } from "./support/api";
import type { Camt053Detail, Camt053Entry, Camt053Version } from "./support/camt053-builder";
import {
  backOffice,
  credit,
  germanIban,
  invoiceOf,
  read,
  rfReference,
  statementFile,
  transactionsOf,
  upload,
  wrongRfReference,
} from "./support/payments";
import { drainStatements, queued, statementsQueued } from "./support/queue";

// docs/api.md part 15 (CONTRACT part 15), "Matching": each booked EUR credit of a statement is matched
// by four rules, in order, end to end through the API: uploaded as the bank sends it (both camt.053
// versions), read and matched by the jobs Worker, seen as the back office (the transaction) and the
// customer (the invoice, its balance and payments) see it. A wrong match is worse than none: the cases
// that must not match are here beside those that must. (The pure functions: matching.test.ts.)

beforeEach(() => {
  queued.take();
  statementsQueued.take();
});

let accounts = 0;
/** A payer's IBAN no other test uses. */
const newIban = () => germanIban(90_000_000 + ++accounts);

/** An invoice's number as a year and a sequence number: `INV-2026-000123` -> ["2026", 123]. */
const partsOf = (number: string) => {
  const [, year, sequence] = /^INV-(\d{4})-(\d{6})$/.exec(number)!;
  return [year!, Number(sequence)] as const;
};

describe.each<Camt053Version>(["camt.053.001.02", "camt.053.001.08"])("%s", (version) => {
  /** Uploads a statement of `entries`, lets the jobs Worker match it, and answers its transactions in file order. */
  async function matched(...entries: Camt053Entry[]): Promise<any[]> {
    const office = await backOffice();
    const [statement] = await upload(office, statementFile(entries, version));
    await drainStatements();
    expect((await read(office, `/bank_statements/${statement.id}`)).state).toBe("processed");
    return (await transactionsOf(office, statement.id)).reverse();
  }

  /** One transfer of `amount` with `detail`: its transaction as the back office sees it. */
  const transfer = async (amount: string, detail: Camt053Detail = {}) => (await matched(credit(amount, detail)))[0];

  /** The invoice, its balance and its payments, as its customer sees them. */
  const seen = async (auth: string, invoice: any) => ({
    state: (await read(auth, `/invoices/${invoice.id}`)).state,
    open: (await read(auth, `/invoices/${invoice.id}/balance`)).open_amount,
    payments: (await read(auth, `/invoices/${invoice.id}/payments`)).map((p: any) => [p.amount, p.bank_transaction_id]),
  });

  /** A customer: its token and id. */
  const customer = async () => {
    const id = unique("customer");
    return { id, auth: await token({ customer_id: id }) };
  };

  describe("rule 1: the references a transfer names", () => {
    it("the structured creditor reference, the invoice's RF reference, names it: paid, as the balance shows", async () => {
      const { id, auth } = await customer();
      const invoice = await invoiceOf(auth, "119.00");
      const balance = await read(auth, `/invoices/${invoice.id}/balance`);
      expect(balance.payment_reference).toBe(rfReference(invoice.number));
      const tx = await transfer("119.00", {
        structuredReference: balance.payment_reference,
        debtorName: "Kantine Nord",
      });
      expect(tx).toMatchObject({
        creditor_reference: balance.payment_reference,
        state: "matched",
        allocated_amount: "119.00",
        unapplied_amount: "0.00",
        customer: id,
      });
      expect(await seen(auth, invoice)).toStrictEqual({ state: "paid", open: "0.00", payments: [["119.00", tx.id]] });
    });

    it.each([
      ["printed in groups of four", (rf: string) => `Rechnung ${rf.replace(/(.{4})(?=.)/g, "$1 ")} danke`],
      ["in lower case", (rf: string) => `zahlung ${rf.toLowerCase()}`],
      ["as one run between words", (rf: string) => `Beleg ${rf} vom 20.11.`],
    ])("the RF reference in the remittance information, %s", async (_, write) => {
      const { auth } = await customer();
      const invoice = await invoiceOf(auth, "20.00");
      const tx = await transfer("20.00", { unstructured: [write(rfReference(invoice.number))] });
      expect(tx.state).toBe("matched");
      expect((await seen(auth, invoice)).state).toBe("paid");
    });

    it("the RF reference as the end-to-end id", async () => {
      const { auth } = await customer();
      const invoice = await invoiceOf(auth, "20.00");
      expect((await transfer("20.00", { endToEndId: rfReference(invoice.number) })).state).toBe("matched");
      expect((await seen(auth, invoice)).state).toBe("paid");
    });

    it.each([
      ["the invoice number", (number: string) => number],
      ["the number without hyphens", (number: string) => number.replaceAll("-", "")],
    ])("the structured reference is read only as an RF reference: %s there names nothing", async (_, write) => {
      const { auth } = await customer();
      const invoice = await invoiceOf(auth, "20.00");
      const tx = await transfer("20.00", { structuredReference: write(invoice.number) });
      expect(tx).toMatchObject({ state: "unmatched", allocated_amount: "0.00", customer: null });
      expect(await seen(auth, invoice)).toStrictEqual({ state: "open", open: "20.00", payments: [] });
    });

    it.each([
      ["as the structured reference", (rf: string) => ({ structuredReference: rf })],
      ["in the text, one run", (rf: string) => ({ unstructured: [`Zahlung ${rf}`] })],
      // The body alone after a space would be read as a typed invoice number (see the case after this one).
      ["in the text, its body apart", (rf: string) => ({ unstructured: [`Zahlung ${rf.slice(0, 4)} ${rf.slice(4)}`] })],
      ["in the text, in groups of four", (rf: string) => ({ unstructured: [rf.replace(/(.{4})(?=.)/g, "$1 ")] })],
      ["as the end-to-end id", (rf: string) => ({ endToEndId: rf })],
    ])(
      "an RF reference with wrong check digits, %s, names nothing, and its body is not read as an invoice number",
      async (_, detail) => {
        const { auth } = await customer();
        const invoice = await invoiceOf(auth, "20.00");
        const wrong = wrongRfReference(invoice.number);
        expect(wrong).not.toBe(rfReference(invoice.number));
        const tx = await transfer("20.00", detail(wrong));
        expect(tx).toMatchObject({ state: "unmatched", allocated_amount: "0.00", customer: null });
        expect(await seen(auth, invoice)).toStrictEqual({ state: "open", open: "20.00", payments: [] });
      },
    );

    it("the same body without the RF prefix is a typed invoice number, and names the invoice", async () => {
      const { auth } = await customer();
      const invoice = await invoiceOf(auth, "20.00");
      expect((await transfer("20.00", { unstructured: [`Zahlung ${invoice.number.replaceAll("-", "")}`] })).state).toBe(
        "matched",
      );
    });

    it("a wrong RF reference hides nothing else: the invoice number beside it names the invoice", async () => {
      const { auth } = await customer();
      const invoice = await invoiceOf(auth, "20.00");
      const tx = await transfer("20.00", {
        structuredReference: wrongRfReference(invoice.number),
        unstructured: [`Rechnung ${invoice.number}`],
      });
      expect(tx.state).toBe("matched");
    });

    it.each([
      ["as issued", (y: string, n: number) => `INV-${y}-${String(n).padStart(6, "0")}`],
      ["in lower case", (y: string, n: number) => `inv-${y}-${String(n).padStart(6, "0")}`],
      ["with spaces, without leading zeros", (y: string, n: number) => `INV ${y} ${n}`],
      ["in lower case with spaces", (y: string, n: number) => `inv ${y} ${n}`],
      ["without separators", (y: string, n: number) => `INV${y}${String(n).padStart(6, "0")}`],
      ["with fewer leading zeros", (y: string, n: number) => `Inv-${y}-${String(n).padStart(4, "0")}`],
      ["with more leading zeros", (y: string, n: number) => `INV-${y}-${String(n).padStart(9, "0")}`],
      [
        "with eleven leading zeros more",
        (y: string, n: number) => `INV-${y}-${"0".repeat(11)}${String(n).padStart(6, "0")}`,
      ],
      ["hyphens and spaces mixed", (y: string, n: number) => `INV - ${y}-  ${n}`],
    ])("an invoice number typed %s, in the text and as the end-to-end id, names the invoice", async (_, write) => {
      const { auth } = await customer();
      const [a, b] = [await invoiceOf(auth, "20.00"), await invoiceOf(auth, "30.00")];
      const [txA, txB] = await matched(
        credit("20.00", { unstructured: [`Rechnung ${write(...partsOf(a.number))}, danke`] }),
        credit("30.00", { endToEndId: write(...partsOf(b.number)) }),
      );
      expect([txA.state, txB.state]).toStrictEqual(["matched", "matched"]);
      expect([(await seen(auth, a)).state, (await seen(auth, b)).state]).toStrictEqual(["paid", "paid"]);
    });

    it.each([
      ["inside a word", (number: string) => `XY${number}`],
      ["with more digits after it than a number has", (number: string) => `${number}0000`],
    ])("an invoice number %s names none", async (_, write) => {
      const { auth } = await customer();
      const invoice = await invoiceOf(auth, "20.00");
      expect((await transfer("20.00", { unstructured: [write(invoice.number)] })).state).toBe("unmatched");
      expect((await seen(auth, invoice)).state).toBe("open");
    });

    it("unknown references are skipped, repeats count once", async () => {
      const { id, auth } = await customer();
      const invoice = await invoiceOf(auth, "25.00");
      // Named five times (RF, typed, as the end-to-end id) among numbers of no invoice: it takes 25.00 once.
      const tx = await transfer("50.00", {
        structuredReference: rfReference(invoice.number),
        unstructured: [
          `INV-1999-000001 ${invoice.number} ${rfReference("INV-1999-000002")}`,
          `inv ${partsOf(invoice.number).join(" ")}`,
        ],
        endToEndId: invoice.number,
      });
      expect(tx).toMatchObject({
        state: "overpaid",
        allocated_amount: "25.00",
        unapplied_amount: "25.00",
        customer: id,
      });
      expect(await seen(auth, invoice)).toStrictEqual({ state: "paid", open: "0.00", payments: [["25.00", tx.id]] });
    });

    it("in the order found: the structured reference, then the text, then the end-to-end id", async () => {
      const { auth } = await customer();
      const [a, b, c, d] = [
        await invoiceOf(auth, "10.00"),
        await invoiceOf(auth, "20.00"),
        await invoiceOf(auth, "30.00"),
        await invoiceOf(auth, "40.00"),
      ];
      // Written d, c, b, a in the file's text order, but named a (structured), c and b (text), d (end-to-end id).
      const tx = await transfer("45.00", {
        endToEndId: d.number,
        unstructured: [`${c.number} und ${b.number}`],
        structuredReference: rfReference(a.number),
      });
      expect(tx).toMatchObject({ state: "matched", allocated_amount: "45.00" });
      expect([await seen(auth, a), await seen(auth, c), await seen(auth, b), await seen(auth, d)]).toStrictEqual([
        { state: "paid", open: "0.00", payments: [["10.00", tx.id]] },
        { state: "paid", open: "0.00", payments: [["30.00", tx.id]] },
        { state: "open", open: "15.00", payments: [["5.00", tx.id]] },
        { state: "open", open: "40.00", payments: [] },
      ]);
    });
  });

  describe("rule 2: the amount goes to the named open invoices in order, each up to its open amount", () => {
    it("several invoices in one transfer: shared in order, the last one partly", async () => {
      const { id, auth } = await customer();
      const [a, b, c] = [
        await invoiceOf(auth, "10.00"),
        await invoiceOf(auth, "20.00"),
        await invoiceOf(auth, "30.00"),
      ];
      const tx = await transfer("40.00", { unstructured: [`${a.number}, ${b.number}, ${c.number}`] });
      expect(tx).toMatchObject({ state: "matched", allocated_amount: "40.00", unapplied_amount: "0.00", customer: id });
      expect([await seen(auth, a), await seen(auth, b), await seen(auth, c)]).toStrictEqual([
        { state: "paid", open: "0.00", payments: [["10.00", tx.id]] },
        { state: "paid", open: "0.00", payments: [["20.00", tx.id]] },
        { state: "open", open: "20.00", payments: [["10.00", tx.id]] },
      ]);
    });

    it("an invoice partly paid takes only what is still open; the next transfer pays the rest", async () => {
      const { auth } = await customer();
      const invoice = await invoiceOf(auth, "100.00");
      const [first, second] = await matched(
        credit("60.00", { endToEndId: invoice.number }),
        credit("100.00", { endToEndId: invoice.number }),
      );
      expect([first.state, first.allocated_amount]).toStrictEqual(["matched", "60.00"]);
      expect([second.state, second.allocated_amount, second.unapplied_amount]).toStrictEqual([
        "overpaid",
        "40.00",
        "60.00",
      ]);
      expect(await seen(auth, invoice)).toStrictEqual({
        state: "paid",
        open: "0.00",
        payments: [
          ["60.00", first.id],
          ["40.00", second.id],
        ],
      });
    });

    it("overpaid: the remainder is a credit of the customer of the last named invoice", async () => {
      const [x, y] = [await customer(), await customer()];
      const [a, b] = [await invoiceOf(x.auth, "10.00"), await invoiceOf(y.auth, "20.00")];
      const tx = await transfer("35.50", { unstructured: [`${a.number} ${b.number}`] });
      expect(tx).toMatchObject({
        state: "overpaid",
        allocated_amount: "30.00",
        unapplied_amount: "5.50",
        customer: y.id,
      });
      expect([(await seen(x.auth, a)).state, (await seen(y.auth, b)).state]).toStrictEqual(["paid", "paid"]);
      // The other way round, the credit is x's.
      const [c, d] = [await invoiceOf(x.auth, "10.00"), await invoiceOf(y.auth, "20.00")];
      expect((await transfer("35.50", { unstructured: [`${d.number} ${c.number}`] })).customer).toBe(x.id);
    });

    // Docs: a remainder is "a credit of the customer of the last named invoice that took some"; `customer` is
    // "null until a match names one". A named invoice that took nothing is not what the match named.
    it("the transaction's customer is one its money went to, not a named invoice's that took nothing", async () => {
      const [x, y] = [await customer(), await customer()];
      const [a, b] = [await invoiceOf(x.auth, "10.00"), await invoiceOf(y.auth, "5.00")];
      // All of it goes to x's invoice; y's, named after it, takes nothing.
      const tx = await transfer("10.00", { unstructured: [`${a.number} ${b.number}`] });
      expect(tx).toMatchObject({ state: "matched", allocated_amount: "10.00" });
      expect(await seen(y.auth, b)).toStrictEqual({ state: "open", open: "5.00", payments: [] });
      expect(tx.customer).toBe(x.id);
    });

    it("a wrong match is worse than none: a named invoice that took nothing does not make its customer the payer's", async () => {
      const [x, y] = [await customer(), await customer()];
      const [a, b] = [await invoiceOf(x.auth, "10.00"), await invoiceOf(y.auth, "5.00")];
      const payer = newIban();
      await transfer("10.00", { debtorIban: payer, unstructured: [`${a.number} ${b.number}`] });
      // The payer paid x's invoice only. A transfer of y's open amount from that IBAN without a reference
      // is not y's money (rule 3: the IBAN of an earlier transaction matched to that customer).
      expect((await transfer("5.00", { debtorIban: payer })).state).toBe("unmatched");
      expect(await seen(y.auth, b)).toStrictEqual({ state: "open", open: "5.00", payments: [] });
    });

    it("every named invoice paid or cancelled: unmatched, no customer, and rule 3 is not asked", async () => {
      const { auth } = await customer();
      const payer = newIban();
      await storeBillingProfile(auth, { direct_debit_iban: payer });
      const [paid, cancelled, open] = [
        await invoiceOf(auth, "10.00"),
        await invoiceOf(auth, "10.00"),
        await invoiceOf(auth, "12.00"),
      ];
      expect((await call(`/invoices/${paid.id}/pay`, { token: auth, method: "POST" })).status).toBe(200);
      expect((await call(`/invoices/${cancelled.id}/cancel`, { token: auth, method: "POST" })).status).toBe(200);
      // The payer's IBAN is the customer's, whose one open invoice is of the amount: still no match.
      const tx = await transfer("12.00", { debtorIban: payer, unstructured: [`${paid.number} ${cancelled.number}`] });
      expect(tx).toMatchObject({
        state: "unmatched",
        allocated_amount: "0.00",
        unapplied_amount: "12.00",
        customer: null,
      });
      expect(await seen(auth, open)).toStrictEqual({ state: "open", open: "12.00", payments: [] });
      expect((await seen(auth, paid)).payments).toHaveLength(1); // pay's own
      expect(await seen(auth, cancelled)).toStrictEqual({ state: "cancelled", open: "10.00", payments: [] });
    });

    it("a named paid invoice takes nothing, the open one after it all", async () => {
      const { auth } = await customer();
      const [paid, open] = [await invoiceOf(auth, "10.00"), await invoiceOf(auth, "15.00")];
      await call(`/invoices/${paid.id}/pay`, { token: auth, method: "POST" });
      const tx = await transfer("15.00", { unstructured: [`${paid.number} ${open.number}`] });
      expect(tx.state).toBe("matched");
      expect((await seen(auth, open)).state).toBe("paid");
      expect((await seen(auth, paid)).payments).toHaveLength(1);
    });
  });

  describe("rule 3: no reference, the payer's IBAN and the amount", () => {
    it("the IBAN of one customer's profile, one open invoice of that amount: it goes there", async () => {
      const { id, auth } = await customer();
      const payer = newIban();
      await storeBillingProfile(auth, { direct_debit_iban: payer });
      const [other, invoice] = [await invoiceOf(auth, "30.00"), await invoiceOf(auth, "45.00")];
      const tx = await transfer("45.00", { debtorIban: payer, unstructured: ["Danke"] });
      expect(tx).toMatchObject({ counterparty_iban: payer, state: "matched", allocated_amount: "45.00", customer: id });
      expect(await seen(auth, invoice)).toStrictEqual({ state: "paid", open: "0.00", payments: [["45.00", tx.id]] });
      expect((await seen(auth, other)).state).toBe("open");
    });

    it("the IBAN of an earlier transaction matched to one customer", async () => {
      const { id, auth } = await customer();
      const payer = newIban();
      const [first, second] = [await invoiceOf(auth, "30.00"), await invoiceOf(auth, "45.00")];
      // Unknown before: no match.
      expect((await transfer("45.00", { debtorIban: payer })).state).toBe("unmatched");
      // Matched by reference, the IBAN becomes the customer's.
      expect((await transfer("30.00", { debtorIban: payer, endToEndId: first.number })).customer).toBe(id);
      const tx = await transfer("45.00", { debtorIban: payer });
      expect(tx).toMatchObject({ state: "matched", customer: id });
      expect((await seen(auth, second)).state).toBe("paid");
    });

    it("the open amount counts, not the gross: a partly paid invoice is found by what is left", async () => {
      const { auth } = await customer();
      const payer = newIban();
      await storeBillingProfile(auth, { direct_debit_iban: payer });
      const invoice = await invoiceOf(auth, "50.00");
      await transfer("20.00", { endToEndId: invoice.number });
      expect((await transfer("50.00", { debtorIban: payer })).state).toBe("unmatched");
      expect((await transfer("30.00", { debtorIban: payer })).state).toBe("matched");
      expect((await seen(auth, invoice)).state).toBe("paid");
    });

    it("two open invoices of that amount: unmatched", async () => {
      const { auth } = await customer();
      const payer = newIban();
      await storeBillingProfile(auth, { direct_debit_iban: payer });
      const [a, b] = [await invoiceOf(auth, "45.00"), await invoiceOf(auth, "45.00")];
      expect(await transfer("45.00", { debtorIban: payer })).toMatchObject({ state: "unmatched", customer: null });
      expect([(await seen(auth, a)).open, (await seen(auth, b)).open]).toStrictEqual(["45.00", "45.00"]);
    });

    it("no open invoice of that amount (only a bigger one): unmatched", async () => {
      const { auth } = await customer();
      const payer = newIban();
      await storeBillingProfile(auth, { direct_debit_iban: payer });
      const invoice = await invoiceOf(auth, "45.00");
      expect((await transfer("44.99", { debtorIban: payer })).state).toBe("unmatched");
      expect((await seen(auth, invoice)).open).toBe("45.00");
    });

    it("an IBAN of two customers' profiles: unmatched", async () => {
      const [x, y] = [await customer(), await customer()];
      const payer = newIban();
      await storeBillingProfile(x.auth, { direct_debit_iban: payer });
      await storeBillingProfile(y.auth, { direct_debit_iban: payer });
      const invoice = await invoiceOf(x.auth, "45.00");
      expect((await transfer("45.00", { debtorIban: payer })).state).toBe("unmatched");
      expect((await seen(x.auth, invoice)).state).toBe("open");
    });

    it("an IBAN of one customer's profile and of a transaction matched to another: unmatched", async () => {
      const [x, y] = [await customer(), await customer()];
      const payer = newIban();
      await storeBillingProfile(x.auth, { direct_debit_iban: payer });
      const [xs, ys] = [await invoiceOf(x.auth, "45.00"), await invoiceOf(y.auth, "10.00")];
      expect((await transfer("10.00", { debtorIban: payer, endToEndId: ys.number })).customer).toBe(y.id);
      expect((await transfer("45.00", { debtorIban: payer })).state).toBe("unmatched");
      expect((await seen(x.auth, xs)).state).toBe("open");
    });

    it("an IBAN of transactions matched to two customers: unmatched", async () => {
      const [x, y] = [await customer(), await customer()];
      const payer = newIban();
      const [x1, x2, y1] = [
        await invoiceOf(x.auth, "10.00"),
        await invoiceOf(x.auth, "45.00"),
        await invoiceOf(y.auth, "11.00"),
      ];
      await matched(
        credit("10.00", { debtorIban: payer, endToEndId: x1.number }),
        credit("11.00", { debtorIban: payer, endToEndId: y1.number }),
      );
      expect((await transfer("45.00", { debtorIban: payer })).state).toBe("unmatched");
      expect((await seen(x.auth, x2)).state).toBe("open");
    });

    it("the IBAN's customer has no such invoice, another customer has: unmatched", async () => {
      const [x, y] = [await customer(), await customer()];
      const payer = newIban();
      await storeBillingProfile(x.auth, { direct_debit_iban: payer });
      const theirs = await invoiceOf(y.auth, "45.00");
      expect((await transfer("45.00", { debtorIban: payer })).state).toBe("unmatched");
      expect((await seen(y.auth, theirs)).state).toBe("open");
    });

    it("references that name no invoice of ours count as none: the IBAN rule applies", async () => {
      const { id, auth } = await customer();
      const payer = newIban();
      await storeBillingProfile(auth, { direct_debit_iban: payer });
      const invoice = await invoiceOf(auth, "45.00");
      const tx = await transfer("45.00", { debtorIban: payer, unstructured: ["INV-1999-000001"] });
      expect(tx).toMatchObject({ state: "matched", customer: id });
      expect((await seen(auth, invoice)).state).toBe("paid");
    });

    it("a transfer is allocated by these rules only: a matching amount and the customer's name are not enough", async () => {
      const { auth } = await customer();
      const invoice = await invoiceOf(auth, "77.31");
      // The one open invoice of 77.31 anywhere, the payer named as the buyer, but no reference and no known IBAN.
      const tx = await transfer("77.31", { debtorName: "Müller & Söhne Gastronomie GmbH", debtorIban: newIban() });
      expect(tx).toMatchObject({ state: "unmatched", customer: null });
      expect(await transfer("77.31", { debtorName: "Müller & Söhne Gastronomie GmbH" })).toMatchObject({
        state: "unmatched",
      });
      expect((await seen(auth, invoice)).state).toBe("open");
    });
  });

  describe("rule 4: an invoice whose open amount reaches zero is paid, exactly as pay does", () => {
    it("state paid, paid_at the moment of the match (its payment's), updated_at with it", async () => {
      const { auth } = await customer();
      const invoice = await invoiceOf(auth, "33.00");
      const before = Date.now();
      const tx = await transfer("33.00", { endToEndId: invoice.number });
      const [payment] = await read(auth, `/invoices/${invoice.id}/payments`);
      expect(payment).toStrictEqual({
        id: expect.stringMatching(UUID),
        type: "payment",
        invoice_id: invoice.id,
        invoice_number: invoice.number,
        amount: "33.00",
        method: "bank_transfer",
        bank_transaction_id: tx.id,
        booked_on: "2026-11-20",
        returned_at: null,
        return_reason: null,
        created_at: expect.stringMatching(ISO_MS),
      });
      await expectJson(await call(`/invoices/${invoice.id}`, { token: auth }), 200, {
        data: { ...invoice, state: "paid", paid_at: payment.created_at, updated_at: payment.created_at },
      });
      expect(Date.parse(payment.created_at)).toBeGreaterThanOrEqual(before);
      // Paid, it cannot be paid again.
      expect((await call(`/invoices/${invoice.id}/pay`, { token: auth, method: "POST" })).status).toBe(409);
    });

    it("a partial payment leaves the invoice open", async () => {
      const { auth } = await customer();
      const invoice = await invoiceOf(auth, "33.00");
      await transfer("32.99", { endToEndId: invoice.number });
      expect(await read(auth, `/invoices/${invoice.id}`)).toMatchObject({ state: "open", paid_at: null });
      expect((await seen(auth, invoice)).open).toBe("0.01");
    });
  });

  describe("what is not matched: debits, other currencies, entries not booked, reversals", () => {
    it.each<[string, Partial<Camt053Entry>]>([
      ["a debit", { creditDebit: "debit" }],
      ["a credit in another currency", { currency: "USD" }],
      ["a pending credit (PDNG)", { status: "PDNG" }],
      ["an information entry (INFO)", { status: "INFO" }],
      ["a reversal (RvslInd)", { reversal: true }],
    ])(
      "%s, naming an open invoice: ignored, nothing allocated, counted neither matched nor unmatched",
      async (_, fields) => {
        const { auth } = await customer();
        const payer = newIban();
        await storeBillingProfile(auth, { direct_debit_iban: payer });
        const invoice = await invoiceOf(auth, "20.00");
        const office = await backOffice();
        const entry = {
          ...credit("20.00", { endToEndId: invoice.number, debtorIban: payer, creditorIban: payer }),
          ...fields,
        };
        const [statement] = await upload(office, statementFile([entry], version));
        await drainStatements();
        const [tx] = await transactionsOf(office, statement.id);
        expect(tx).toMatchObject({
          amount: "20.00",
          currency: fields.currency ?? "EUR",
          state: "ignored",
          allocated_amount: "0.00",
          unapplied_amount: "0.00",
          customer: null,
        });
        expect(await read(office, `/bank_statements/${statement.id}`)).toMatchObject({
          transactions_count: 1,
          matched_count: 0,
          unmatched_count: 0,
          duplicate_count: 0,
        });
        expect(await seen(auth, invoice)).toStrictEqual({ state: "open", open: "20.00", payments: [] });
        // An ignored transaction is no payer's: its IBAN names no customer for rule 3.
        const count = await env.DB.prepare(
          "SELECT count(*) AS n FROM bank_transactions WHERE customer_id IS NOT NULL AND counterparty_iban = ?",
        )
          .bind(payer)
          .first<number>("n");
        expect(count).toBe(0);
      },
    );
  });
});
