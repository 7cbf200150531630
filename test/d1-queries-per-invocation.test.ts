import { createExecutionContext, createMessageBatch, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import jobs from "../src/jobs/index";
import type { StatementMessage } from "../src/payments/messages";
import { storeBillingProfile, token } from "./support/api";
import { type CallRecord, FaultyD1, UNREACHABLE } from "./support/faulty-d1";
import {
  backOffice,
  collection,
  credit,
  germanIban,
  invoiceOf,
  read,
  rfReference,
  statementFile,
  upload,
} from "./support/payments";
import { queued, statementsQueued } from "./support/queue";

// Issue 39 point 1: D1 allows a Worker invocation 1,000 queries, and `wrangler dev` does not enforce it.
// Each run of the statements queue's consumer is one invocation: here each runs against a D1 of its own
// that counts what it is sent, the calls (a batch is one) and the statements (each of a batch's counts),
// over a statement whose every transaction costs the most a transaction can: references read, the
// payer's IBAN looked up, invoices paid.

const LIMIT = 1000;

/** Runs the statements queue's messages, each run on a D1 of its own that counts its calls and statements. */
async function countedRuns(most: number) {
  const runs: { calls: number; statements: number }[] = [];
  for (let round = 0; round < most && statementsQueued.messages.length > 0; round++) {
    const body = statementsQueued.messages.shift()!;
    const batch = createMessageBatch<StatementMessage>("voucher-billing-statements", [
      { id: `q-${round}`, timestamp: new Date(), attempts: 1, body },
    ]);
    const db = new FaultyD1(env.DB);
    const ctx = createExecutionContext();
    await jobs.queue(
      batch,
      { ...env, DB: db.binding, EVENTS: queued.binding, STATEMENTS: statementsQueued.binding },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    runs.push({ calls: db.count, statements: db.calls.reduce((sum, call) => sum + call.sql.length, 0) });
  }
  return runs;
}

it("each run of a statement's processing stays within D1's 1,000 queries per invocation", {
  timeout: 120_000,
}, async () => {
  const office = await backOffice();
  const auth = await token();
  const payer = germanIban(8_100_001);
  await storeBillingProfile(auth, { direct_debit_iban: payer });
  const invoices: any[] = [];
  for (let i = 0; i < 20; i++) invoices.push(await invoiceOf(auth, "100.00"));
  // By reference (two invoices named, one paid in part), by the payer's IBAN alone, and naming nothing known.
  const entries = Array.from({ length: 1500 }, (_, i) =>
    i % 3 === 0
      ? credit("1.00", {
          structuredReference: rfReference(invoices[i % 20].number),
          unstructured: [`${invoices[(i + 1) % 20].number} INV-2026-999999`],
        })
      : i % 3 === 1
        ? credit("100.00", { debtorIban: payer })
        : credit("3.00", { unstructured: ["INV-2026-999998"], debtorIban: germanIban(8_100_002) }),
  );
  queued.take();
  statementsQueued.take();
  const [statement] = await upload(office, statementFile(entries));
  const runs = await countedRuns(50);
  expect(await read(office, `/bank_statements/${statement.id}`)).toMatchObject({
    state: "processed",
    transactions_count: 1500,
  });
  expect(runs.length).toBeGreaterThanOrEqual(2);
  const most = { calls: Math.max(...runs.map((r) => r.calls)), statements: Math.max(...runs.map((r) => r.statements)) };
  expect(most.calls, JSON.stringify(runs)).toBeLessThanOrEqual(LIMIT);
  expect(most.statements, JSON.stringify(runs)).toBeLessThanOrEqual(LIMIT);
});

/** Copies the row `id` of `table` into a new one, `changes` set (every other column as it was). */
async function cloneStatement(table: string, id: string, changes: Record<string, unknown>) {
  const { results } = await env.DB.prepare(`PRAGMA table_info(${table})`).all<{ name: string }>();
  const columns = results.map((c) => c.name);
  const values = columns.map((c) => (c in changes ? "?" : `"${c}"`));
  return env.DB.prepare(
    `INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(", ")}) SELECT ${values.join(", ")} FROM ${table} WHERE id = ?`,
  ).bind(...columns.filter((c) => c in changes).map((c) => changes[c]), id);
}

/**
 * A pending collection's block of `size` direct debits, each of an invoice (and order) of its own: one
 * made through the API, the others copied from it in D1 (numbers `prefix` and five digits); and the
 * batch entry without details that settles the block.
 */
async function block(size: number, prefix: string) {
  const office = await backOffice();
  const auth = await token();
  const { id: collectionId, message_id } = await collection(auth);
  const [debit] = (
    await env.DB.prepare("SELECT * FROM direct_debits WHERE collection_id = ?").bind(collectionId).all<any>()
  ).results;
  const invoice = await env.DB.prepare("SELECT * FROM invoices WHERE id = ?").bind(debit.invoice_id).first<any>();
  // The rest of the block, each of an invoice (and order) of its own, copied from the first.
  const clones: D1PreparedStatement[] = [];
  const numbers: string[] = [invoice.number];
  for (let k = 1; k < size; k++) {
    const orderId = crypto.randomUUID();
    const invoiceId = crypto.randomUUID();
    const number = `${invoice.number.slice(0, 9)}${prefix}${String(k).padStart(5, "0")}`;
    numbers.push(number);
    clones.push(
      await cloneStatement("card_orders", invoice.order_id, { id: orderId }),
      await cloneStatement("invoices", invoice.id, { id: invoiceId, number, order_id: orderId }),
      await cloneStatement("direct_debits", debit.id, {
        id: crypto.randomUUID(),
        invoice_id: invoiceId,
        end_to_end_id: number,
      }),
    );
  }
  for (let i = 0; i < clones.length; i += 300) await env.DB.batch(clones.slice(i, i + 300));
  const total = (size * debit.amount) / 100;
  const entry = {
    amount: total.toFixed(2),
    creditDebit: "credit" as const,
    status: "BOOK",
    bookedOn: "2026-11-20",
    valueDate: "2026-11-20",
    accountServicerReference: `ACSR-${crypto.randomUUID().slice(0, 20)}`,
    batch: { paymentInformationId: `${message_id}-FRST`, count: size },
  };
  return { office, collectionId, debit, entry, numbers };
}

// Part 16: a batch entry without details that settles a block of 1,000 direct debits is one transaction
// of about 6,000 statements: it is written in parts, each within the run's queries, each atomic.
it("a batch entry settling 1,000 direct debits: each run within D1's 1,000 queries, every invoice paid once", {
  timeout: 120_000,
}, async () => {
  const { office, collectionId, debit, entry, numbers } = await block(1000, "9");
  queued.take();
  statementsQueued.take();
  const [statement] = await upload(office, statementFile([entry]));
  const runs = await countedRuns(50);
  expect(await read(office, `/bank_statements/${statement.id}`)).toMatchObject({
    state: "processed",
    transactions_count: 1,
    matched_count: 1,
  });
  const [tx] = (
    await env.DB.prepare("SELECT id, state, allocated_amount FROM bank_transactions WHERE bank_statement_id = ?")
      .bind(statement.id)
      .all<any>()
  ).results;
  expect(tx).toMatchObject({ state: "matched", allocated_amount: 1000 * debit.amount });
  const paid = await env.DB.prepare(
    "SELECT count(*) AS n, count(DISTINCT invoice_id) AS invoices, sum(amount) AS sum FROM payments WHERE bank_transaction_id = ?",
  )
    .bind(tx.id)
    .first();
  expect(paid).toStrictEqual({ n: 1000, invoices: 1000, sum: 1000 * debit.amount });
  const states = await env.DB.prepare(
    "SELECT state, count(*) AS n FROM invoices WHERE number IN (SELECT end_to_end_id FROM direct_debits WHERE collection_id = ?) GROUP BY state",
  )
    .bind(collectionId)
    .all();
  expect(states.results).toStrictEqual([{ state: "paid", n: 1000 }]);
  const events = await env.DB.prepare(
    "SELECT type, count(*) AS n FROM events WHERE type IN ('payment.received', 'invoice.paid') AND json_extract(data, '$.bank_transaction_id') = ? GROUP BY type",
  )
    .bind(tx.id)
    .all();
  expect(events.results).toStrictEqual([{ type: "payment.received", n: 1000 }]);
  expect(
    (await env.DB.prepare("SELECT state FROM direct_debit_collections WHERE id = ?").bind(collectionId).first())!.state,
  ).toBe("settled");
  expect(runs.length).toBeGreaterThanOrEqual(6);
  const most = { calls: Math.max(...runs.map((r) => r.calls)), statements: Math.max(...runs.map((r) => r.statements)) };
  expect(most.calls, JSON.stringify(runs)).toBeLessThanOrEqual(LIMIT);
  expect(most.statements, JSON.stringify(runs)).toBeLessThanOrEqual(LIMIT);
  expect(numbers).toHaveLength(1000);
});

/** A D1 whose first batch is executed and its answer lost. */
class FirstBatchLost extends FaultyD1 {
  private lost = false;

  constructor() {
    super(env.DB);
  }

  override async call<R>(kind: CallRecord["kind"], sql: string[], run: () => Promise<R>): Promise<R> {
    if (kind !== "batch" || this.lost) return super.call(kind, sql, run);
    this.lost = true;
    await run();
    throw new Error(UNREACHABLE);
  }
}

it("a batch entry's settlement whose second part's answer is lost: the redelivery carries on, every invoice paid once", {
  timeout: 120_000,
}, async () => {
  const { office, collectionId, debit, entry } = await block(400, "8");
  queued.take();
  statementsQueued.take();
  const [statement] = await upload(office, statementFile([entry]));
  // The first run writes a part and sends itself on; the second's batch reaches the database, its answer is lost.
  expect(await countedRuns(1)).toHaveLength(1);
  const message = statementsQueued.messages.shift()!;
  const fault = { DB: new FirstBatchLost().binding };
  const batch = createMessageBatch<StatementMessage>("voucher-billing-statements", [
    { id: "lost", timestamp: new Date(), attempts: 1, body: message },
  ]);
  let retried = false;
  batch.messages[0]!.retry = () => void (retried = true);
  const ctx = createExecutionContext();
  await jobs.queue(batch, { ...env, ...fault, EVENTS: queued.binding, STATEMENTS: statementsQueued.binding }, ctx);
  await waitOnExecutionContext(ctx);
  expect(retried).toBe(true);
  // The queue delivers it again.
  statementsQueued.messages.push(message);
  await countedRuns(20);
  expect(await read(office, `/bank_statements/${statement.id}`)).toMatchObject({
    state: "processed",
    matched_count: 1,
  });
  const paid = await env.DB.prepare(
    "SELECT count(*) AS n, count(DISTINCT p.invoice_id) AS invoices, sum(p.amount) AS sum, max(t.allocated_amount) AS allocated " +
      "FROM payments p JOIN bank_transactions t ON t.id = p.bank_transaction_id WHERE t.bank_statement_id = ?",
  )
    .bind(statement.id)
    .first();
  expect(paid).toStrictEqual({ n: 400, invoices: 400, sum: 400 * debit.amount, allocated: 400 * debit.amount });
  const settled = await env.DB.prepare(
    "SELECT state, count(*) AS n FROM direct_debits WHERE collection_id = ? GROUP BY state",
  )
    .bind(collectionId)
    .all();
  expect(settled.results).toStrictEqual([{ state: "paid", n: 400 }]);
});
