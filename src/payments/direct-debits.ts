import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../db/client";
import { guarded } from "../db/guards";
import { bankTransactions, invoices, payments, type InvoiceRow } from "../db/schema";
import { directDebitCollections, directDebits, type DirectDebitRow } from "../schemas/direct-debit-collection";
import { blockOf } from "../domain/direct-debits";
import { transactionStateOf, type TransactionState } from "../domain/payments";
import type { EventDraft } from "../events/outbox";
import { unappliedOf } from "../schemas/bank-transaction";
import { allocate, payableOf, recordReturned, reverse } from "../writes/payments";
import type { StatementTransaction } from "./camt053";

// docs/api.md part 16: a statement's transaction as part of a direct debit's life, read before part 15's
// rules. A credit settles what a pending collection sent: the debit its end-to-end id names, or, for a
// batch entry without details, every debit of the payment information block its PmtInfId names when
// the amounts agree. A debit with return information reverses the payment of the debit its end-to-end
// id names, whenever it comes. Anything else is part 15's to match.

/** What a transaction does as a direct debit's settlement or return: its state, writes and events. */
interface DebitPlan {
  state: TransactionState;
  allocated: number;
  customerId: string | null;
  writes: BatchItem<"sqlite">[];
  events: EventDraft[];
  /** A batch entry's settlement written in parts: debits of it are left for the next part. */
  remaining?: boolean;
}

/** Where a batch entry's settlement stands: its transaction stored by an earlier part, with what it allocated. */
interface Resumed {
  id: string;
  allocatedAmount: number;
}

const booked = (tx: StatementTransaction) => tx.status === "BOOK" && tx.currency === "EUR";

/** The debit's state moved from what was read (and its settlement): the batch fails if it is not that any more. */
const debitMoves = (orm: Database, debit: DirectDebitRow, to: Partial<DirectDebitRow>) =>
  orm
    .update(directDebits)
    .set({
      state: guarded(
        debit.settledBy === null
          ? sql`${directDebits.state} = ${debit.state} AND ${directDebits.settledBy} IS NULL`
          : sql`${directDebits.state} = ${debit.state}`,
        to.state,
        "debit_unchanged",
      ),
      ...(to.returnReason === undefined ? {} : { returnReason: to.returnReason }),
      ...(to.settledBy === undefined ? {} : { settledBy: to.settledBy }),
    })
    .where(eq(directDebits.id, debit.id));

/**
 * A debit no credit has settled yet: pending, or returned before its settlement was read (the return
 * is kept against its end-to-end id: the settlement that follows is recorded and reversed at once).
 */
const unsettled = (debit: DirectDebitRow) =>
  debit.state === "pending" || (debit.state === "returned" && debit.settledBy === null);

/** The collection is settled once none of its debits is pending (this batch's changes included). */
const settles = (orm: Database, collectionId: string) =>
  orm
    .update(directDebitCollections)
    .set({ state: "settled" })
    .where(
      and(
        eq(directDebitCollections.id, collectionId),
        sql`NOT EXISTS (SELECT 1 FROM ${directDebits} WHERE ${directDebits.collectionId} = ${collectionId} AND ${
          directDebits.state
        } = 'pending')`,
      ),
    );

/** The debits a credit settles: by its end-to-end id, or a batch entry's block; none: not ours. */
async function settledBy(orm: Database, tx: StatementTransaction, resumed?: Resumed): Promise<DirectDebitRow[]> {
  if (tx.endToEndId !== null) {
    const [debit] = await orm.select().from(directDebits).where(eq(directDebits.endToEndId, tx.endToEndId));
    if (debit && unsettled(debit) && debit.amount === tx.amountCents) return [debit];
  }
  const block =
    tx.entryTransactionsCount === 0 && tx.batchPaymentInformationId !== null && blockOf(tx.batchPaymentInformationId);
  if (!block) return [];
  const debits = await orm
    .select({ debit: directDebits })
    .from(directDebits)
    .innerJoin(directDebitCollections, eq(directDebitCollections.id, directDebits.collectionId))
    .where(and(eq(directDebitCollections.messageId, block.messageId), eq(directDebits.sequenceType, block.sequence)));
  const rows = debits.map(({ debit }) => debit);
  const sum = rows.reduce((total, debit) => total + debit.amount, 0);
  // A part of this entry's settlement written before: the debits it settled are its own.
  const open = (debit: DirectDebitRow) => unsettled(debit) || (resumed !== undefined && debit.settledBy === resumed.id);
  return rows.length > 0 && rows.every(open) && sum === tx.amountCents ? rows : [];
}

/** The invoices of `debits`, by id. */
async function invoicesOf(orm: Database, debits: DirectDebitRow[]): Promise<Map<string, InvoiceRow>> {
  const rows = await orm
    .select({ invoice: invoices })
    .from(invoices)
    .innerJoin(directDebits, eq(directDebits.invoiceId, invoices.id))
    .where(
      debits.length === 1
        ? eq(directDebits.id, debits[0]!.id)
        : and(
            eq(directDebits.collectionId, debits[0]!.collectionId),
            eq(directDebits.sequenceType, debits[0]!.sequenceType),
          ),
    );
  return new Map(rows.map(({ invoice }) => [invoice.id, invoice]));
}

/** The invoice this debit's collection no longer holds: the debit is settled or returned (a later one may hold it). */
const released = (orm: Database, debit: DirectDebitRow) =>
  orm
    .update(invoices)
    .set({ pendingCollection: null })
    .where(and(eq(invoices.id, debit.invoiceId), eq(invoices.pendingCollection, debit.collectionId)));

/**
 * A credit that settles debits: each invoice paid its debit's amount, as a payment of method
 * direct_debit, up to what it has open (a transfer for it may have come meanwhile: what the invoice no
 * longer needs stays unapplied, a credit of its customer). A debit whose return was read first: its
 * payment recorded and reversed at once (payment.received, then payment.returned), the invoice untouched.
 */
async function settlement(
  orm: Database,
  tx: StatementTransaction,
  transactionId: string,
  at: string,
  budget: number,
  resumed?: Resumed,
) {
  const debits = await settledBy(orm, tx, resumed);
  if (debits.length === 0) return undefined;
  const byId = await invoicesOf(orm, debits);
  const writes: BatchItem<"sqlite">[] = [];
  const events: EventDraft[] = [];
  // A debit settled costs at most six statements (the debit, its collection's hold, the payment, the
  // invoice, two events): a block of 1,000 is written in parts that each fit the run's queries, each
  // part atomic, the transaction's allocated amount growing with each (docs/api.md part 16).
  const todo = debits.filter((debit) => debit.settledBy === null);
  const part = todo.slice(0, Math.max(1, Math.floor((budget - 30) / 6)));
  let allocated = 0;
  for (const debit of part) {
    const invoice = byId.get(debit.invoiceId)!;
    const payment = {
      invoice,
      method: "direct_debit" as const,
      bankTransactionId: transactionId,
      bookedOn: tx.bookedOn ?? at.slice(0, 10),
      at,
      id: debit.id,
    };
    if (debit.state === "returned") {
      writes.push(debitMoves(orm, debit, { state: "returned", settledBy: transactionId }));
      const reversed = recordReturned(orm, { ...payment, amount: debit.amount }, debit.returnReason ?? "");
      writes.push(...reversed.writes);
      events.push(...reversed.events);
      allocated += debit.amount;
      continue;
    }
    const amount = Math.min(debit.amount, payableOf(invoice));
    writes.push(debitMoves(orm, debit, { state: "paid", settledBy: transactionId }), released(orm, debit));
    if (amount === 0) continue;
    const allocation = allocate(orm, { ...payment, amount });
    writes.push(...allocation.writes);
    events.push(...allocation.events);
    allocated += amount;
  }
  writes.push(settles(orm, debits[0]!.collectionId));
  const plan: DebitPlan = {
    state: transactionStateOf(tx.amountCents, allocated + (resumed?.allocatedAmount ?? 0)),
    allocated,
    // One customer's block, or a debit of one: theirs. A block of several customers is no one's: what it
    // left over, a person allocates.
    customerId: new Set(debits.map((debit) => debit.customerId)).size === 1 ? debits[0]!.customerId : null,
    writes,
    events,
    remaining: part.length < todo.length,
  };
  return plan;
}

/**
 * The bank took back the debit's whole amount: what its settlement transaction has unapplied shrinks by
 * the part of it the reversed payment did not cover (`covered`), never below zero, so that money is never
 * allocated again. Guarded on the allocated amount read, like a person's allocation.
 */
async function takenBack(orm: Database, debit: DirectDebitRow, settledBy: string | null, covered: number) {
  const uncovered = debit.amount - covered;
  if (settledBy === null || uncovered <= 0) return [];
  const [settled] = await orm.select().from(bankTransactions).where(eq(bankTransactions.id, settledBy));
  if (!settled) return [];
  const shrink = Math.min(uncovered, unappliedOf(settled));
  if (shrink <= 0) return [];
  const allocated = settled.allocatedAmount + shrink;
  return [
    orm
      .update(bankTransactions)
      .set({
        allocatedAmount: guarded(
          sql`${bankTransactions.allocatedAmount} = ${settled.allocatedAmount}`,
          allocated,
          "transaction_allocation",
        ),
        state: transactionStateOf(settled.amount, allocated),
      })
      .where(eq(bankTransactions.id, settled.id)),
  ];
}

/**
 * A returned debit: its payment reversed (when it was paid), the debit `returned` with its reason. The
 * transaction is matched; of its amount only the debit's is allocated: a fee in it stays unapplied.
 */
async function returned(orm: Database, tx: StatementTransaction, at: string): Promise<DebitPlan | undefined> {
  if (tx.endToEndId === null || tx.returnReason === null) return undefined;
  const [debit] = await orm.select().from(directDebits).where(eq(directDebits.endToEndId, tx.endToEndId));
  if (!debit || debit.state === "returned") return undefined;
  const moved = debitMoves(orm, debit, { state: "returned", returnReason: tx.returnReason });
  const plan: DebitPlan = {
    state: "matched",
    allocated: Math.min(debit.amount, tx.amountCents),
    customerId: debit.customerId,
    writes: [moved, released(orm, debit), settles(orm, debit.collectionId)],
    events: [],
  };
  if (debit.state === "pending") return plan;
  const [[payment], [invoice]] = await Promise.all([
    orm.select().from(payments).where(eq(payments.id, debit.id)),
    orm.select().from(invoices).where(eq(invoices.id, debit.invoiceId)),
  ]);
  const live = payment && invoice && payment.returnedAt === null ? payment : undefined;
  const shrunk = await takenBack(orm, debit, debit.settledBy ?? payment?.bankTransactionId ?? null, live?.amount ?? 0);
  if (!live || !invoice) return { ...plan, writes: [...shrunk, ...plan.writes] };
  const reversal = reverse(orm, { payment: live, invoice, reason: tx.returnReason, at });
  return { ...plan, writes: [...reversal.writes, ...shrunk, ...plan.writes], events: reversal.events };
}

/** What a transaction does for a direct debit, before part 15's rules; undefined: nothing. */
export async function directDebitPlan(
  orm: Database,
  tx: StatementTransaction,
  transactionId: string,
  at: string,
  budget: number,
  resumed?: Resumed,
): Promise<DebitPlan | undefined> {
  if (!booked(tx)) return undefined;
  if (tx.creditDebit === "debit") return returned(orm, tx, at);
  return tx.reversal ? undefined : settlement(orm, tx, transactionId, at, budget, resumed);
}
