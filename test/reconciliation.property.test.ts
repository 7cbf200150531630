import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { call, token, unique } from "./support/api";
import type { Camt053Detail, Camt053Entry, Camt053Version } from "./support/camt053-builder";
import type { FaultMode } from "./support/faulty-d1";
import {
  backOffice,
  credit,
  invoiceOf,
  read,
  rfReference,
  statementFile,
  TransactionBatchFault,
  toMoney,
  upload,
  wrongRfReference,
} from "./support/payments";
import { drainStatements, queued, statementsQueued } from "./support/queue";

// docs/api.md part 15 (CONTRACT part 15), reconciliation as a property: random open invoices of a few
// customers (some cancelled), and random transfers that pay them exactly, partly, several at once,
// too much, that write their references as people do or wrongly (wrong check digits, unknown numbers),
// among noise (debits, other currencies, pending entries, reversals). Whatever they are:
// - no allocation exceeds an invoice's open amount or a transaction's amount;
// - what the transactions allocated is the sum of the payments and of the invoices' allocated amounts;
// - the result is what rules 1, 2 and 4 say (a model of them below: the transfers carry no payer IBAN,
//   so rule 3 stays out; matching.rules.test.ts has it);
// - a run that stops at any transaction and is delivered again ends the same;
// - the same file again, and a later statement repeating some of its entries, allocate nothing more.

const RUNS = 60;

/** How an invoice is named: the RF reference (structured, in the text as one run, in groups, lower case),
 * the number as people type it, or the number as the end-to-end id. */
const FORMS = [
  "rf-structured",
  "rf-text",
  "rf-grouped",
  "rf-lower",
  "number",
  "number-spaced",
  "number-bare",
  "number-zeros",
  "e2e",
] as const;
type Form = (typeof FORMS)[number];

type Transfer =
  | {
      kind: "pay";
      refs: { invoice: number; form: Form }[];
      amount: "exact" | "partial" | "over" | number;
      part: number;
    }
  | { kind: "wrong-rf"; invoice: number; where: "structured" | "text" | "grouped" | "e2e"; cents: number }
  | { kind: "unknown"; number: number; rf: boolean; cents: number }
  | { kind: "noise"; noise: "debit" | "usd" | "pending" | "reversal"; invoice: number; cents: number };

const anyCents = fc.integer({ min: 1, max: 150_000 });

const anyTransfer: fc.Arbitrary<Transfer> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("pay" as const),
      refs: fc.array(fc.record({ invoice: fc.nat(), form: fc.constantFrom(...FORMS) }), { minLength: 1, maxLength: 3 }),
      amount: fc.oneof(fc.constantFrom("exact" as const, "partial" as const, "over" as const), anyCents),
      part: fc.integer({ min: 1, max: 99 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("wrong-rf" as const),
      invoice: fc.nat(),
      where: fc.constantFrom("structured" as const, "text" as const, "grouped" as const, "e2e" as const),
      cents: anyCents,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("unknown" as const),
      number: fc.integer({ min: 1, max: 999_999 }),
      rf: fc.boolean(),
      cents: anyCents,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("noise" as const),
      noise: fc.constantFrom("debit" as const, "usd" as const, "pending" as const, "reversal" as const),
      invoice: fc.nat(),
      cents: anyCents,
    }),
  },
);

const anyScenario = fc.record({
  version: fc.constantFrom<Camt053Version>("camt.053.001.02", "camt.053.001.08"),
  customers: fc.integer({ min: 1, max: 3 }),
  invoices: fc.array(
    fc.record({
      cents: fc.integer({ min: 100, max: 99_999 }),
      customer: fc.nat(),
      cancelled: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  transfers: fc.array(anyTransfer, { minLength: 1, maxLength: 8 }),
  // Which of the file's entries a later, overlapping statement repeats.
  repeated: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
  // The processing stops at the batch of the k-th transaction (before it reaches the database, or after,
  // its answer lost) and the queue delivers the message again; or it runs through.
  crash: fc.option(fc.record({ at: fc.nat(), when: fc.constantFrom<FaultMode>("before", "after") }), {
    nil: undefined,
  }),
});

/** `INV-2026-000123` as a form names it. */
function written(number: string, form: Form): string {
  const [, year, sequence] = /^INV-(\d{4})-(\d{6})$/.exec(number)!;
  const rf = rfReference(number);
  switch (form) {
    case "rf-structured":
    case "rf-text":
      return rf;
    case "rf-grouped":
      return rf.replace(/(.{4})(?=.)/g, "$1 ");
    case "rf-lower":
      return rf.toLowerCase();
    case "number":
    case "e2e":
      return number;
    case "number-spaced":
      return `inv ${year} ${Number(sequence)}`;
    case "number-bare":
      return `INV${year}${sequence}`;
    case "number-zeros":
      return `Inv-${year}-${sequence!.padStart(9, "0")}`;
  }
}

interface ModelInvoice {
  id: string;
  number: string;
  customer: string;
  gross: number;
  allocated: number;
  state: "open" | "paid" | "cancelled";
}

/** What rules 1, 2 and 4 make of one transaction: its entry, and the allocations the model expects. */
function transferOf(transfer: Transfer, invoices: ModelInvoice[]) {
  const pick = (i: number) => invoices[i % invoices.length]!;
  if (transfer.kind === "noise") {
    const entry = { ...credit(toMoney(transfer.cents), { endToEndId: pick(transfer.invoice).number }) };
    const noisy: Camt053Entry =
      transfer.noise === "debit"
        ? { ...entry, creditDebit: "debit" }
        : transfer.noise === "usd"
          ? { ...entry, currency: "USD" }
          : transfer.noise === "pending"
            ? { ...entry, status: "PDNG" }
            : { ...entry, reversal: true };
    return { entry: noisy, amount: transfer.cents, ignored: true, named: [] as ModelInvoice[] };
  }
  if (transfer.kind === "wrong-rf") {
    const wrong = wrongRfReference(pick(transfer.invoice).number);
    const detail: Camt053Detail =
      transfer.where === "structured"
        ? { structuredReference: wrong }
        : transfer.where === "e2e"
          ? { endToEndId: wrong }
          : transfer.where === "grouped"
            ? { unstructured: [wrong.replace(/(.{4})(?=.)/g, "$1 ")] }
            : { unstructured: [`Zahlung ${wrong.slice(0, 4)} ${wrong.slice(4)}`] };
    return { entry: credit(toMoney(transfer.cents), detail), amount: transfer.cents, ignored: false, named: [] };
  }
  if (transfer.kind === "unknown") {
    // Numbers of a year no invoice has.
    const number = `INV-1999-${String(transfer.number).padStart(6, "0")}`;
    const detail = { unstructured: [transfer.rf ? rfReference(number) : number] };
    return { entry: credit(toMoney(transfer.cents), detail), amount: transfer.cents, ignored: false, named: [] };
  }
  // One structured reference and one end-to-end id at most; the rest is text, in the order given.
  const refs = transfer.refs.map((ref) => ({ invoice: pick(ref.invoice), form: ref.form }));
  const structured = refs.find((ref) => ref.form === "rf-structured");
  const e2e = refs.find((ref) => ref.form === "e2e");
  const text = refs.filter((ref) => ref !== structured && ref !== e2e);
  const detail: Camt053Detail = {
    ...(structured && { structuredReference: written(structured.invoice.number, "rf-structured") }),
    ...(text.length > 0 && { unstructured: [text.map((ref) => written(ref.invoice.number, ref.form)).join(" / ")] }),
    ...(e2e && { endToEndId: e2e.invoice.number }),
  };
  // Named in the order found: structured, text, end-to-end id; each once.
  const named = [...new Set([structured, ...text, e2e].filter((ref) => ref !== undefined).map((ref) => ref.invoice))];
  const open = named.reduce(
    (sum, invoice) => sum + (invoice.state === "open" ? invoice.gross - invoice.allocated : 0),
    0,
  );
  const amount = Math.max(
    1,
    transfer.amount === "exact"
      ? open
      : transfer.amount === "partial"
        ? Math.floor((open * transfer.part) / 100)
        : transfer.amount === "over"
          ? open + transfer.part * 37
          : transfer.amount,
  );
  return { entry: credit(toMoney(amount), detail), amount, ignored: false, named };
}

/** Rule 2 and 4 on the model: the amount to the named open invoices in order, each up to its open amount. */
function share(amount: number, named: ModelInvoice[]) {
  const allocations: [ModelInvoice, number][] = [];
  let left = amount;
  for (const invoice of named) {
    const open = invoice.state === "open" ? invoice.gross - invoice.allocated : 0;
    if (left === 0 || open === 0) continue;
    const taken = Math.min(left, open);
    allocations.push([invoice, taken]);
    invoice.allocated += taken;
    if (invoice.allocated === invoice.gross) invoice.state = "paid";
    left -= taken;
  }
  return allocations;
}

const rows = async <T>(sql: string, ...params: unknown[]) =>
  (
    await env.DB.prepare(sql)
      .bind(...params)
      .all<T>()
  ).results;

describe("reconciliation, whatever the invoices and transfers", () => {
  it("allocates what rules 1, 2 and 4 say, never beyond an open amount or a transaction, and never twice", {
    timeout: 120_000,
  }, async () => {
    const office = await backOffice();
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(anyScenario, async (scenario) => {
        queued.take();
        statementsQueued.take();
        const customers = await Promise.all(
          Array.from({ length: scenario.customers }, async () => {
            const id = unique("customer");
            return { id, auth: await token({ customer_id: id }) };
          }),
        );
        // Made at once (their numbers in any order): the runs are many.
        const invoices: ModelInvoice[] = await Promise.all(
          scenario.invoices.map(async (spec) => {
            const owner = customers[spec.customer % customers.length]!;
            const invoice = await invoiceOf(owner.auth, toMoney(spec.cents));
            if (spec.cancelled)
              expect((await call(`/invoices/${invoice.id}/cancel`, { token: owner.auth, method: "POST" })).status).toBe(
                200,
              );
            return {
              id: invoice.id,
              number: invoice.number,
              customer: owner.id,
              gross: spec.cents,
              allocated: 0,
              state: spec.cancelled ? ("cancelled" as const) : ("open" as const),
            };
          }),
        );

        // The file, and what the model expects of each of its transactions, in order.
        const expected: { amount: number; state: string; customer: unknown; allocations: [string, number][] }[] = [];
        const entries: Camt053Entry[] = [];
        for (const transfer of scenario.transfers) {
          const { entry, amount, ignored, named } = transferOf(transfer, invoices);
          entries.push(entry);
          const allocations = ignored ? [] : share(amount, named);
          const allocated = allocations.reduce((sum, [, cents]) => sum + cents, 0);
          const state = ignored
            ? "ignored"
            : allocated === 0
              ? "unmatched"
              : allocated === amount
                ? "matched"
                : "overpaid";
          expected.push({
            amount,
            state,
            // Overpaid: a credit of the customer of the last named invoice (which took some); none without a
            // match. (Which customer a matched transfer names: matching.rules.test.ts.)
            customer:
              state === "overpaid" ? allocations.at(-1)![0].customer : state === "matched" ? expect.any(String) : null,
            allocations: allocations.map(([invoice, cents]) => [invoice.number, cents]),
          });
        }
        const file = statementFile(entries, scenario.version);
        const [statement] = await upload(office, file);
        if (scenario.crash) {
          const [outcome] = await drainStatements({
            DB: new TransactionBatchFault((scenario.crash.at % entries.length) + 1, scenario.crash.when).binding,
          });
          expect(outcome!.retried).toBeDefined();
          statementsQueued.messages.push(outcome!.body);
        }
        await drainStatements();

        // The statement and its transactions, as the model says.
        const count = (state: string) => expected.filter((tx) => tx.state === state).length;
        expect(await read(office, `/bank_statements/${statement.id}`)).toMatchObject({
          state: "processed",
          transactions_count: entries.length,
          matched_count: count("matched") + count("overpaid"),
          unmatched_count: count("unmatched"),
          duplicate_count: 0,
        });
        const transactions = await rows<{
          id: string;
          amount: number;
          allocated_amount: number;
          state: string;
          customer_id: string | null;
        }>(
          "SELECT id, amount, allocated_amount, state, customer_id FROM bank_transactions WHERE bank_statement_id = ? ORDER BY position",
          statement.id,
        );
        const payments = await rows<{
          bank_transaction_id: string;
          invoice_number: string;
          amount: number;
          id: string;
        }>(
          "SELECT p.id, p.bank_transaction_id, p.invoice_number, p.amount FROM payments p " +
            "JOIN bank_transactions t ON t.id = p.bank_transaction_id WHERE t.bank_statement_id = ? ORDER BY p.created_at, p.rowid",
          statement.id,
        );
        expect(
          transactions.map((tx) => ({
            amount: tx.amount,
            state: tx.state,
            customer: tx.customer_id,
            allocations: payments
              .filter((p) => p.bank_transaction_id === tx.id)
              .map((p) => [p.invoice_number, p.amount]),
          })),
        ).toStrictEqual(expected);

        // The invariants, whatever the model says.
        const stored = await rows<{ id: string; gross_amount: number; allocated_amount: number; state: string }>(
          `SELECT id, gross_amount, allocated_amount, state FROM invoices WHERE id IN (${invoices.map(() => "?").join(", ")}) ORDER BY id`,
          ...invoices.map((invoice) => invoice.id),
        );
        for (const tx of transactions) {
          const paid = payments.filter((p) => p.bank_transaction_id === tx.id).reduce((sum, p) => sum + p.amount, 0);
          expect(paid).toBe(tx.allocated_amount);
          expect(tx.allocated_amount).toBeLessThanOrEqual(tx.amount);
        }
        for (const invoice of stored) {
          const paid = payments.filter((p) => invoices.find((i) => i.id === invoice.id)!.number === p.invoice_number);
          expect(paid.reduce((sum, p) => sum + p.amount, 0)).toBe(invoice.allocated_amount);
          expect(invoice.allocated_amount).toBeLessThanOrEqual(invoice.gross_amount);
          const model = invoices.find((i) => i.id === invoice.id)!;
          expect([invoice.state, invoice.allocated_amount]).toStrictEqual([model.state, model.allocated]);
        }
        const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
        expect(sum(transactions.map((tx) => tx.allocated_amount))).toBe(sum(payments.map((p) => p.amount)));
        expect(sum(stored.map((invoice) => invoice.allocated_amount))).toBe(sum(payments.map((p) => p.amount)));
        // Each payment has its payment.received; each invoice paid its invoice.paid, once.
        const events = await rows<{ type: string; ref: string }>(
          "SELECT type, coalesce(json_extract(data, '$.number'), json_extract(data, '$.id')) AS ref FROM events " +
            `WHERE type IN ('payment.received', 'invoice.paid') AND customer_id IN (${customers.map(() => "?").join(", ")})`,
          ...customers.map((c) => c.id),
        );
        expect(
          events
            .filter((e) => e.type === "payment.received")
            .map((e) => e.ref)
            .toSorted(),
        ).toStrictEqual(payments.map((p) => p.id).toSorted());
        expect(
          events
            .filter((e) => e.type === "invoice.paid")
            .map((e) => e.ref)
            .toSorted(),
        ).toStrictEqual(
          invoices
            .filter((i) => i.state === "paid")
            .map((i) => i.number)
            .toSorted(),
        );

        // The same file again, and a later statement that repeats some entries: nothing more.
        const again = statementFile(
          entries.filter((_, i) => scenario.repeated[i]),
          scenario.version,
        );
        const before = { payments: await rows("SELECT id, amount FROM payments ORDER BY id"), stored };
        const reimported = [
          ...(await upload(office, file)),
          ...(entries.some((_, i) => scenario.repeated[i]) ? await upload(office, again) : []),
        ];
        await drainStatements();
        for (const { id, transactions_count } of reimported)
          expect(await read(office, `/bank_statements/${id}`)).toMatchObject({
            state: "processed",
            matched_count: 0,
            unmatched_count: 0,
            duplicate_count: transactions_count,
          });
        expect({
          payments: await rows("SELECT id, amount FROM payments ORDER BY id"),
          stored: await rows(
            `SELECT id, gross_amount, allocated_amount, state FROM invoices WHERE id IN (${invoices.map(() => "?").join(", ")}) ORDER BY id`,
            ...invoices.map((invoice) => invoice.id),
          ),
        }).toStrictEqual(before);
      }),
      { numRuns: RUNS },
    );
    console.log(JSON.stringify({ reconciliation_runs: RUNS, ms: Date.now() - started }));
  });
});
