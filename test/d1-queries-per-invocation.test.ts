import { createExecutionContext, createMessageBatch, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import jobs from "../src/jobs/index";
import type { StatementMessage } from "../src/payments/messages";
import { storeBillingProfile, token } from "./support/api";
import { FaultyD1 } from "./support/faulty-d1";
import {
  backOffice,
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
  const entries = Array.from({ length: 450 }, (_, i) =>
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
  const runs: { calls: number; statements: number }[] = [];
  for (let round = 0; round < 50 && statementsQueued.messages.length > 0; round++) {
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
  expect(await read(office, `/bank_statements/${statement.id}`)).toMatchObject({
    state: "processed",
    transactions_count: 450,
  });
  expect(runs.length).toBeGreaterThanOrEqual(2);
  const most = { calls: Math.max(...runs.map((r) => r.calls)), statements: Math.max(...runs.map((r) => r.statements)) };
  expect(most.calls, JSON.stringify(runs)).toBeLessThanOrEqual(LIMIT);
  expect(most.statements, JSON.stringify(runs)).toBeLessThanOrEqual(LIMIT);
});
