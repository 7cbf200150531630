import { eq, inArray, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { batchNamed, type Database } from "../db/client";
import { guarded, type GuardName } from "../db/guards";
import {
  bankStatements,
  bankTransactions,
  invoices,
  type BankStatementRow,
  type EventRow,
  type InvoiceRow,
} from "../db/schema";
import { referencesOf, share, type NamedInvoice } from "../domain/matching";
import { transactionStateOf, type TransactionState } from "../domain/payments";
import { newId } from "../domain/ids";
import { nextTimestamp } from "../domain/time";
import { WriteConflict } from "../errors";
import { insertEvents, type EventDraft } from "../events/outbox";
import { allocate, payableOf } from "../writes/payments";
import type { StatementTransaction } from "./camt053";
import type { DedupeKeys } from "./dedupe";
import { openInvoicesOf, payersOf } from "./candidates";
import { transactionInsert, transactionRow } from "./rows";
import { directDebitPlan } from "./direct-debits";

// docs/api.md part 15: one transaction of a statement, read and matched, top to bottom. Its reads (is it
// known, which invoices it names, whose is its payer's IBAN), then one atomic batch with everything it
// changes: the transaction row, its allocations (payments, invoices, `invoice.paid`), their events, and
// the statement's counts and position, which the batch holds to: a transaction is handled once, also
// when its statement's processing resumes after a crash or runs twice.

type Outcome = "matched" | "unmatched" | "ignored" | "duplicate";

export const MAX_REFERENCES = 90;

export const RACES = new Set<GuardName>(["invoice_allocation", "debit_unchanged", "payment_not_returned"]);

/** Where a statement's processing stands: the statement as last written, and the last created_at. */
export interface Progress {
  statement: BankStatementRow;
  /** The next transaction's created_at is after this (one strictly increasing time per statement). */
  lastAt: string;
}

/** A booked credit in EUR, not reversed: what the matching looks at. Anything else is ignored. */
export const matchable = (tx: StatementTransaction) =>
  tx.status === "BOOK" && tx.currency === "EUR" && tx.creditDebit === "credit" && !tx.reversal;

export const asNamed = (invoice: InvoiceRow): NamedInvoice => ({
  id: invoice.id,
  number: invoice.number,
  customerId: invoice.customerId,
  // Rule 2 with part 18: an open invoice takes its open amount, then its unpaid charges.
  open: invoice.state === "open" ? payableOf(invoice) : 0,
  state: invoice.state,
});

/**
 * Rule 3: without a reference, the one open invoice whose open amount is the transaction's, of the one
 * customer whose IBAN paid: a profile's direct-debit IBAN, or the payer of a transaction matched before.
 */
async function byPayer(orm: Database, iban: string, amount: number) {
  const { customers } = await payersOf(orm, [iban]);
  const payer = customers.get(iban);
  if (payer?.size !== 1) return [];
  return (await openInvoicesOf(orm, [...payer], [amount])).rows;
}

/** Which open invoices get what of a matchable transaction (rules 1 to 3), and whose credit it is. */
async function allocationsOf(orm: Database, tx: StatementTransaction) {
  // A payer's text naming more invoices than one statement can look up (D1's 100 bound values) names
  // the first of them: no transfer pays so many.
  const references = referencesOf(tx).slice(0, MAX_REFERENCES);
  if (references.length > 0) {
    const rows = await orm.select().from(invoices).where(inArray(invoices.number, references));
    // In the order named; unknown references are skipped.
    const named = references.flatMap((number) => rows.filter((row) => row.number === number));
    if (named.length > 0) {
      const { allocations, customerId } = share(tx.amountCents, named.map(asNamed));
      return { rows: named, allocations, customerId };
    }
  }
  if (tx.counterpartyIban === null) return { rows: [], allocations: [], customerId: null };
  const candidates = await byPayer(orm, tx.counterpartyIban, tx.amountCents);
  if (candidates.length !== 1) return { rows: [], allocations: [], customerId: null };
  const [only] = candidates.map(asNamed);
  return {
    rows: candidates,
    allocations: [{ invoice: only!, amount: tx.amountCents }],
    customerId: only!.customerId,
  };
}

/** Part 15's rules for a transaction no direct debit claims: its state, allocations and their events. */
async function matchingPlan(
  orm: Database,
  tx: StatementTransaction,
  transactionId: string,
  at: string,
): Promise<{
  state: TransactionState;
  allocated: number;
  customerId: string | null;
  writes: BatchItem<"sqlite">[];
  events: EventDraft[];
  remaining?: boolean;
}> {
  if (!matchable(tx)) return { state: "ignored", allocated: 0, customerId: null, writes: [], events: [] };
  const { rows, allocations, customerId } = await allocationsOf(orm, tx);
  const invoicesById = new Map(rows.map((invoice) => [invoice.id, invoice]));
  const writes: BatchItem<"sqlite">[] = [];
  const events: EventDraft[] = [];
  for (const { invoice, amount } of allocations) {
    const allocation = allocate(orm, {
      invoice: invoicesById.get(invoice.id)!,
      amount,
      method: "bank_transfer",
      bankTransactionId: transactionId,
      bookedOn: tx.bookedOn ?? at.slice(0, 10),
      at,
    });
    writes.push(...allocation.writes);
    events.push(...allocation.events);
  }
  const allocated = allocations.reduce((sum, a) => sum + a.amount, 0);
  return { state: transactionStateOf(tx.amountCents, allocated), allocated, customerId, writes, events };
}

/** The statement's counts and position after one more transaction, guarded on its position. */
function advance(orm: Database, progress: Progress, position: number, outcome: Outcome, at: string) {
  const { statement } = progress;
  const last = position + 1 === statement.transactionsCount;
  const count = (column: SQLiteColumn, when: boolean) => (when ? sql`${column} + 1` : sql`${column}`);
  return orm
    .update(bankStatements)
    .set({
      handled: guarded(sql`${bankStatements.handled} = ${position}`, position + 1, "statement_position"),
      matchedCount: count(bankStatements.matchedCount, outcome === "matched"),
      unmatchedCount: count(bankStatements.unmatchedCount, outcome === "unmatched"),
      duplicateCount: count(bankStatements.duplicateCount, outcome === "duplicate"),
      progressedAt: at,
      ...(last ? { state: "processed" as const, processedAt: at } : {}),
    })
    .where(eq(bankStatements.id, statement.id));
}

/**
 * Handles the statement's transaction at `position`: stores and matches it, or counts it as a
 * duplicate, in one batch; answers what it was, the events the batch stored (for the queue) and the
 * last moment it stamped (the next transaction's come after). Each attempt is stamped when it is made:
 * one matched again after a person's allocation comes after that allocation.
 * A concurrent change of a named invoice (a person's allocation) is read again, up to three times.
 */
export async function handleTransaction(
  orm: Database,
  progress: Progress,
  tx: StatementTransaction,
  position: number,
  keys: DedupeKeys,
  budget: number,
): Promise<{ outcome: Outcome; events: EventRow[]; lastAt: string; queries: number; handled: number }> {
  for (let attempt = 1; ; attempt++) {
    const at = nextTimestamp(progress.lastAt);
    // Known: one with its reference key, or, when either lacks AcctSvcrRef, one with its content key (a
    // stored one without AcctSvcrRef has its content key as its dedupe key, also when stored before
    // content_key was kept).
    const [known] = await orm
      .select({
        id: bankTransactions.id,
        bankStatementId: bankTransactions.bankStatementId,
        position: bankTransactions.position,
        allocatedAmount: bankTransactions.allocatedAmount,
      })
      .from(bankTransactions)
      .where(
        or(
          inArray(bankTransactions.dedupeKey, [...new Set([keys.key, keys.content])]),
          keys.referenced ? undefined : eq(bankTransactions.contentKey, keys.content),
        ),
      )
      .limit(1);
    // Stored at this very place by this statement, while its position has not moved past it: a batch
    // entry's settlement, part written (direct-debits.ts), which carries on.
    const resumed = known?.bankStatementId === progress.statement.id && known.position === position ? known : undefined;
    if (known && !resumed) return countOnly(orm, progress, position, at);

    const id = resumed?.id ?? newId();
    const plan = resumed
      ? await directDebitPlan(orm, tx, id, at, budget, resumed)
      : ((await directDebitPlan(orm, tx, id, at, budget)) ?? (await matchingPlan(orm, tx, id, at)));
    // A part written before, and none of the block is left to it: what is there is not this run's to finish.
    if (!plan) throw new Error(`the batch entry at position ${position} was part settled, and its debits changed`);
    const outcome: Outcome =
      plan.state === "ignored" ? "ignored" : plan.state === "unmatched" ? "unmatched" : "matched";
    const row = transactionRow(tx, { id, statementId: progress.statement.id, at, position, keys }, plan);
    const events = insertEvents(orm, null, plan.events, Date.parse(at));
    // Its events are stamped a millisecond apart from `at` (events/outbox.ts): the statement moves on
    // from the last, so that a run that resumes stamps after it.
    const lastAt = new Date(Date.parse(at) + Math.max(0, plan.events.length - 1)).toISOString();
    try {
      const allocated = (resumed?.allocatedAmount ?? 0) + plan.allocated;
      const results = await batchNamed(orm, {
        transaction: [
          resumed
            ? orm
                .update(bankTransactions)
                .set({
                  allocatedAmount: guarded(
                    sql`${bankTransactions.allocatedAmount} = ${resumed.allocatedAmount}`,
                    allocated,
                    "transaction_allocation",
                  ),
                  state: plan.state,
                })
                .where(eq(bankTransactions.id, id))
            : transactionInsert(orm, row, keys),
        ],
        allocations: plan.writes,
        events: events.inserts,
        // A part with debits left: the statement stays at this transaction.
        statement: plan.remaining ? [] : [advance(orm, progress, position, outcome, lastAt)],
      });
      // Its reads (at most a few of each kind), then its batch.
      const queries = 10 + 2 + plan.writes.length + events.inserts.length;
      const stored = (results.events as EventRow[][]).map((rows) => rows[0]!);
      return { outcome, events: stored, lastAt, queries, handled: plan.remaining ? 0 : 1 };
    } catch (error) {
      if (!(error instanceof WriteConflict)) throw error;
      // Another statement stored the same transfer meanwhile.
      if (error.guard === "transaction_known" || error.guard === "transaction_claimed")
        return countOnly(orm, progress, position, at);
      // What it read changed meanwhile (a person's allocation, a debit settled by another run): read again.
      if (RACES.has(error.guard) && attempt < 3) continue;
      throw error;
    }
  }
}

/** A transaction already stored (by an earlier statement, or this one's earlier run): counted, not matched. */
async function countOnly(orm: Database, progress: Progress, position: number, at: string) {
  await orm.batch([advance(orm, progress, position, "duplicate", at)]);
  return { outcome: "duplicate" as const, events: [], lastAt: at, queries: 2, handled: 1 };
}
