// The floor of `npm run bench:reconcile`: the same file parsed by the service's reader and the same
// transactions and allocations written by the service's builders, without matching (BENCHMARKS.md,
// "Chunked statements, and the floor"). Never deployed.
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { bankStatements, bankTransactions, events, invoices, payments } from "../../src/db/schema";
import { readStatement } from "../../src/payments/camt053";
import { dedupeKeys } from "../../src/payments/dedupe";
import { transactionRow } from "../../src/payments/rows";

interface Env {
  DB: D1Database;
}

/** Per position: the invoices it pays (id, number, customer, cents); and each invoice's gross amount. */
let given: [number, string, string, string, number][] = [];
let gross: Record<string, number> = {};

const slices = <T>(rows: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(rows.length / size) }, (_, i) => rows.slice(i * size, (i + 1) * size));

const CHUNK = 200;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/health") return new Response("ok");
    if (request.method === "PUT" && url.pathname === "/allocations") {
      ({ given, gross } = (await request.json()) as { given: typeof given; gross: typeof gross });
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
    // What each invoice still has open, to write its settling (state, paid_at, invoice.paid) when it is paid.
    const open = new Map<string, number>(Object.entries(gross));
    for (let start = 0; start < transactions.length; start += CHUNK) {
      const rows: any[] = [];
      const paymentRows: any[] = [];
      const updates: any[] = [];
      const eventRows: any[] = [];
      for (let position = start; position < Math.min(transactions.length, start + CHUNK); position++) {
        const tx = transactions[position]!;
        const id = crypto.randomUUID();
        const at = new Date().toISOString();
        const paid = byPosition.get(position) ?? [];
        const allocated = paid.reduce((sum, a) => sum + a[4], 0);
        rows.push(
          orm
            .insert(bankTransactions)
            .values(
              transactionRow(
                tx,
                { id, statementId, at, position, keys: keys[position]! },
                { state: allocated === 0 ? "unmatched" : "matched", allocated, customerId: paid[0]?.[3] ?? null },
              ),
            ),
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
          const left = (open.get(invoiceId) ?? 0) - cents;
          open.set(invoiceId, left);
          paymentRows.push(payment);
          updates.push(
            orm
              .update(invoices)
              .set({
                allocatedAmount: sql`${invoices.allocatedAmount} + ${cents}`,
                ...(left === 0 ? { state: "paid" as const, paidAt: at, updatedAt: at } : {}),
              })
              .where(sql`${invoices.id} = ${invoiceId}`),
          );
          const event = (type: "payment.received" | "invoice.paid", data: unknown) => ({
            id: crypto.randomUUID(),
            customerId,
            type,
            createdAt: at,
            data: JSON.stringify(data),
            dispatchedAt: null,
          });
          eventRows.push(event("payment.received", payment));
          if (left === 0) eventRows.push(event("invoice.paid", { id: invoiceId, number, state: "paid", paid_at: at }));
        }
      }
      // The service's grouping (src/payments/chunk.ts): payments 9 and events 16 a statement.
      const batch = [
        ...rows,
        ...slices(paymentRows, 9).map((group) => orm.insert(payments).values(group)),
        ...updates,
        ...slices(eventRows, 16).map((group) => orm.insert(events).values(group)),
      ];
      statements += batch.length;
      await orm.batch(batch as [any, ...any[]]);
    }
    return Response.json({ transactions: transactions.length, statements, ms: Date.now() - started });
  },
};
