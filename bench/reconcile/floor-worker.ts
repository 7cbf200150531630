// The floor of `npm run bench:reconcile` (bench/reconcile.mjs): what importing a statement cannot do
// without, and nothing else. The same file parsed by the service's reader (src/payments/camt053.ts), its
// dedupe keys (src/payments/dedupe.ts), and the same number of transactions and allocations written to a
// D1 of the service's schema by the service's builders, in batches of 200 transactions: each
// transaction's row, each allocation's payment, its invoice's allocated amount and its payment.received
// event. No matching: which invoice gets what is given (PUT /allocations, the plan's expectation), and
// nothing is read. Never deployed.
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { bankStatements, bankTransactions, events, invoices, payments } from "../../src/db/schema";
import { readStatement } from "../../src/payments/camt053";
import { dedupeKeys } from "../../src/payments/dedupe";

interface Env {
  DB: D1Database;
}

/** Per position: the invoices it pays (id, number, customer, cents). */
let given: [number, string, string, string, number][] = [];

const CHUNK = 200;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/health") return new Response("ok");
    if (request.method === "PUT" && url.pathname === "/allocations") {
      given = await request.json();
      return new Response(null, { status: 204 });
    }
    if (request.method !== "POST" || url.pathname !== "/floor") return new Response("not found", { status: 404 });
    const started = Date.now();
    const bytes = new Uint8Array(await request.arrayBuffer());
    const transactions = readStatement(bytes, 0);
    const keys = await dedupeKeys(url.searchParams.get("iban") ?? "", transactions);
    const byPosition = new Map<number, typeof given>();
    for (const allocation of given)
      byPosition.set(allocation[0], [...(byPosition.get(allocation[0]) ?? []), allocation]);
    const orm = drizzle(env.DB);
    // The statement the transactions belong to (the service stores it at the upload).
    const statementId = crypto.randomUUID();
    const now = new Date().toISOString();
    await orm.insert(bankStatements).values({
      id: statementId,
      statementId: "floor",
      accountIban: url.searchParams.get("iban") ?? "",
      state: "processing",
      transactionsCount: transactions.length,
      createdAt: now,
      progressedAt: now,
      fileKey: "floor",
      fileIndex: 0,
      version: "camt.053.001.08",
    });
    let statements = 1;
    for (let start = 0; start < transactions.length; start += CHUNK) {
      const batch: any[] = [];
      for (let position = start; position < Math.min(transactions.length, start + CHUNK); position++) {
        const tx = transactions[position]!;
        const id = crypto.randomUUID();
        const at = new Date().toISOString();
        const paid = byPosition.get(position) ?? [];
        const allocated = paid.reduce((sum, a) => sum + a[4], 0);
        batch.push(
          orm.insert(bankTransactions).values({
            id,
            bankStatementId: statementId,
            bookedOn: tx.bookedOn,
            valueDate: tx.valueDate,
            creditDebit: tx.creditDebit,
            amount: tx.amountCents,
            currency: tx.currency,
            counterpartyName: tx.counterpartyName,
            counterpartyIban: tx.counterpartyIban,
            endToEndId: tx.endToEndId,
            creditorReference: tx.creditorReference,
            remittanceInformation: tx.remittanceInformation,
            state: allocated === 0 ? "unmatched" : "matched",
            allocatedAmount: allocated,
            customerId: paid[0]?.[3] ?? null,
            createdAt: at,
            dedupeKey: keys[position]!.key,
            contentKey: keys[position]!.content,
            position,
            returnReason: tx.returnReason,
          }),
        );
        for (const [, invoiceId, number, customerId, cents] of paid) {
          const payment = {
            id: crypto.randomUUID(),
            invoiceId,
            invoiceNumber: number,
            customerId,
            amount: cents,
            method: "bank_transfer" as const,
            bankTransactionId: id,
            bookedOn: tx.bookedOn ?? at.slice(0, 10),
            returnedAt: null,
            returnReason: null,
            createdAt: at,
          };
          batch.push(
            orm.insert(payments).values(payment),
            orm
              .update(invoices)
              .set({ allocatedAmount: sql`${invoices.allocatedAmount} + ${cents}` })
              .where(sql`${invoices.id} = ${invoiceId}`),
            orm.insert(events).values({
              id: crypto.randomUUID(),
              customerId,
              type: "payment.received",
              createdAt: at,
              data: JSON.stringify(payment),
              dispatchedAt: null,
            }),
          );
        }
      }
      statements += batch.length;
      await orm.batch(batch as [any, ...any[]]);
    }
    return Response.json({ transactions: transactions.length, statements, ms: Date.now() - started });
  },
};
