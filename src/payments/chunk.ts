import { eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { batchNamed, type Database } from "../db/client";
import { guarded } from "../db/guards";
import { bankStatements, events, payments, type EventRow, type InvoiceRow, type PaymentRow } from "../db/schema";
import { blockOf } from "../domain/direct-debits";
import { referencesOf, share } from "../domain/matching";
import { transactionStateOf } from "../domain/payments";
import { newId } from "../domain/ids";
import { nextTimestamp } from "../domain/time";
import { WriteConflict } from "../errors";
import { allocate } from "../writes/payments";
import type { StatementTransaction } from "./camt053";
import { debitIds, groups, invoicesNumbered, knownKeys, openInvoicesOf, payersOf, readsFor } from "./candidates";
import type { DedupeKeys } from "./dedupe";
import { asNamed, MAX_REFERENCES, matchable, type Progress, RACES } from "./transaction";
import { transactionInsert, transactionRow } from "./rows";

// docs/api.md part 15: a chunk of a statement's transactions, matched at once. Everything the chunk's
// matching needs is read first, for all of it (is each known, which invoices they name, whose are their
// payers' IBANs and which of those customers' open invoices have their amounts), then each transaction
// is matched in memory, in file order, against what the transactions before it in the chunk changed;
// and the chunk is one atomic batch: its transactions, allocations, events and the statement's counts
// and position, which the batch holds to (a chunk is applied once, also when a run resumes after a
// crash or runs twice). A transaction whose outcome depends on what the reads did not fetch (a direct
// debit's settlement or return, a payer's customer first named inside the chunk) ends the chunk before
// it: the next chunk reads again, or, alone, it is handled as transaction.ts does.

/** Transactions per chunk at most. */
const CHUNK = 200;

/** What a chunk left: how many transactions it handled, its events (for the queue), its last stamp, its queries. */
type Chunked = { handled: number; events: EventRow[]; lastAt: string; queries: number };

/** A transaction part 16 may claim (a direct debit's settlement or return): handled alone, as before. */
const debitLike = (tx: StatementTransaction, debits: Set<string>) =>
  tx.status === "BOOK" &&
  tx.currency === "EUR" &&
  ((tx.endToEndId !== null && debits.has(tx.endToEndId)) ||
    (tx.creditDebit === "credit" &&
      tx.entryTransactionsCount === 0 &&
      tx.batchPaymentInformationId !== null &&
      blockOf(tx.batchPaymentInformationId) !== undefined));

/** Rows a statement of the chunk's batch inserts at most (D1: 100 bound values; payments bind 11, events 6). */
const PAYMENTS_A_STATEMENT = 9;
const EVENTS_A_STATEMENT = 16;

/**
 * The most statements the writes of `transactions` transactions that may pay `allocations` invoices
 * take in one batch: a row each, an invoice's update each, the payments and the events (two at most
 * an allocation) inserted many rows a statement, and the statement's advance.
 */
const mostWrites = (transactions: number, allocations: number) =>
  transactions +
  allocations +
  Math.ceil(allocations / PAYMENTS_A_STATEMENT) +
  Math.ceil((2 * allocations) / EVENTS_A_STATEMENT) +
  1;

/**
 * Handles the statement's transactions from `start` on, as many as fit `budget` queries: answers
 * undefined when the one at `start` is to be handled alone (transaction.ts).
 */
export async function handleChunk(
  orm: Database,
  progress: Progress,
  transactions: StatementTransaction[],
  start: number,
  keys: DedupeKeys[],
  budget: number,
): Promise<Chunked | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await attemptChunk(orm, progress, transactions, start, keys, budget);
    } catch (error) {
      if (!(error instanceof WriteConflict)) throw error;
      // A concurrent change (a person's allocation, another statement storing the same transfer): read again.
      const stored = error.guard === "transaction_known" || error.guard === "transaction_claimed";
      if ((RACES.has(error.guard) || stored) && attempt < 3) continue;
      throw error;
    }
  }
}

async function attemptChunk(
  orm: Database,
  progress: Progress,
  transactions: StatementTransaction[],
  start: number,
  keys: DedupeKeys[],
  budget: number,
): Promise<Chunked | undefined> {
  // The chunk's extent: what its reads and its batch can take of the budget. Its reads are at most a
  // few groups of each kind (45), and the invoices its references name, 90 a query.
  let end = start;
  let named = 0;
  let paying = 0;
  while (end < transactions.length && end - start < CHUNK) {
    const tx = transactions[end]!;
    const names = matchable(tx) ? Math.min(MAX_REFERENCES, referencesOf(tx).length) : 0;
    // Rule 3 pays one invoice without naming it.
    const pays = matchable(tx) ? Math.max(1, names) : 0;
    if (45 + readsFor(named + names) + mostWrites(end - start + 1, paying + pays) > budget) break;
    named += names;
    paying += pays;
    end++;
  }
  if (end === start) return undefined;
  const slice = transactions.slice(start, end);
  const sliceKeys = keys.slice(start, end);
  let queries = 0;

  const [known, debits] = await Promise.all([
    knownKeys(
      orm,
      [...new Set(sliceKeys.flatMap((k) => [k.key, k.content]))],
      sliceKeys.filter((k) => !k.referenced).map((k) => k.content),
    ),
    debitIds(orm, [...new Set(slice.flatMap((tx) => (tx.endToEndId === null ? [] : [tx.endToEndId])))]),
  ]);
  queries += known.queries + debits.queries;
  const isKnown = (k: DedupeKeys) =>
    known.known.has(k.key) || known.known.has(k.content) || (!k.referenced && known.knownContents.has(k.content));

  // Up to the first transaction part 16 may claim: that one is handled alone.
  // Known or not: a batch entry's settlement part written before is known, and carries on alone.
  const firstDebit = slice.findIndex((tx) => debitLike(tx, debits.found));
  if (firstDebit === 0) return undefined;
  const length = firstDebit === -1 ? slice.length : firstDebit;
  const references = slice
    .slice(0, length)
    .map((tx, i) => (matchable(tx) && !isKnown(sliceKeys[i]!) ? referencesOf(tx).slice(0, MAX_REFERENCES) : []));
  const found = await invoicesNumbered(orm, [...new Set(references.flat())]);
  const numbered = new Set(found.rows.map((row) => row.number));
  // Rule 3 is for those naming no invoice that exists: their payers, and those customers' open invoices
  // of their amounts.
  const byPayer = slice
    .slice(0, length)
    .filter(
      (tx, i) =>
        matchable(tx) &&
        !isKnown(sliceKeys[i]!) &&
        tx.counterpartyIban !== null &&
        !references[i]!.some((number) => numbered.has(number)),
    );
  const payers = await payersOf(orm, [...new Set(byPayer.map((tx) => tx.counterpartyIban!))]);
  const customers = new Set([...payers.customers.values()].flatMap((set) => (set.size === 1 ? [...set] : [])));
  const open = await openInvoicesOf(orm, [...customers], [...new Set(byPayer.map((tx) => tx.amountCents))]);
  queries += found.queries + payers.queries + open.queries;

  // What the chunk reads and changes, by id: each transaction sees the ones before it.
  const cache = new Map<string, InvoiceRow>();
  for (const row of [...found.rows, ...open.rows]) cache.set(row.id, row);
  const byNumber = new Map<string, string>();
  for (const row of found.rows) byNumber.set(row.number, row.id);
  const stored = { keys: new Set<string>(), contents: new Set<string>() };

  const rows: BatchItem<"sqlite">[] = [];
  const allocations: BatchItem<"sqlite">[] = [];
  const paymentRows: PaymentRow[] = [];
  const eventRows: (typeof events.$inferInsert)[] = [];
  const counts = { matched: 0, unmatched: 0, duplicate: 0 };
  let lastAt = progress.lastAt;
  let handled = 0;
  for (let i = 0; i < length; i++) {
    const tx = slice[i]!;
    const k = sliceKeys[i]!;
    const at = nextTimestamp(lastAt);
    if (
      isKnown(k) ||
      stored.keys.has(k.key) ||
      stored.keys.has(k.content) ||
      (!k.referenced && stored.contents.has(k.content))
    ) {
      counts.duplicate++;
      lastAt = at;
      handled++;
      continue;
    }
    // Rules 1 and 2: the named invoices, as the chunk has them so far.
    let plan: { invoice: InvoiceRow; amount: number }[] = [];
    let customerId: string | null = null;
    if (matchable(tx)) {
      const named = references[i]!.flatMap((number) => {
        const id = byNumber.get(number);
        return id === undefined ? [] : [cache.get(id)!];
      });
      if (named.length > 0) {
        const shared = share(tx.amountCents, named.map(asNamed));
        plan = shared.allocations.map((a) => ({ invoice: cache.get(a.invoice.id)!, amount: a.amount }));
        customerId = shared.customerId;
      } else if (tx.counterpartyIban !== null) {
        // Rule 3: the one customer of the payer's IBAN, and its one open invoice of the amount.
        const payer = payers.customers.get(tx.counterpartyIban);
        if (payer?.size === 1) {
          const [customer] = payer;
          // A customer the reads did not fetch invoices of (first named by this chunk): the next chunk reads them.
          if (!customers.has(customer!)) break;
          const candidates = [...cache.values()].filter(
            (row) =>
              row.customerId === customer &&
              row.state === "open" &&
              (row.grossAmount ?? 0) - row.allocatedAmount === tx.amountCents,
          );
          if (candidates.length === 1) {
            plan = [{ invoice: candidates[0]!, amount: tx.amountCents }];
            customerId = customer!;
          }
        }
      }
    }
    const id = newId();
    const drafts = [];
    for (const { invoice, amount } of plan) {
      const allocation = allocate(orm, {
        invoice: cache.get(invoice.id)!,
        amount,
        method: "bank_transfer",
        bankTransactionId: id,
        bookedOn: tx.bookedOn ?? at.slice(0, 10),
        at,
      });
      cache.set(invoice.id, allocation.invoice);
      // Its payment is inserted with the chunk's others, many a statement; its invoice's update here.
      paymentRows.push(allocation.payment);
      allocations.push(...allocation.writes.slice(1));
      drafts.push(...allocation.events);
    }
    const allocated = plan.reduce((sum, a) => sum + a.amount, 0);
    const state = matchable(tx) ? transactionStateOf(tx.amountCents, allocated) : "ignored";
    if (state === "unmatched") counts.unmatched++;
    else if (state !== "ignored") counts.matched++;
    rows.push(
      transactionInsert(
        orm,
        transactionRow(
          tx,
          { id, statementId: progress.statement.id, at, position: start + i, keys: k },
          {
            state,
            allocated,
            customerId,
          },
        ),
        k,
      ),
    );
    if (customerId !== null && tx.counterpartyIban !== null) {
      const payer = payers.customers.get(tx.counterpartyIban) ?? new Set<string>();
      payer.add(customerId);
      payers.customers.set(tx.counterpartyIban, payer);
    }
    stored.keys.add(k.key);
    stored.contents.add(k.content);
    // Stamped a millisecond apart from `at`, in order, as events/outbox.ts stamps a write's events.
    drafts.forEach((draft, j) =>
      eventRows.push({
        id: newId(),
        customerId: draft.customerId!,
        type: draft.type,
        createdAt: new Date(Date.parse(at) + j).toISOString(),
        data: JSON.stringify(draft.data),
        dispatchedAt: null,
      }),
    );
    lastAt = new Date(Date.parse(at) + Math.max(0, drafts.length - 1)).toISOString();
    handled++;
  }
  if (handled === 0) return undefined;

  const { statement } = progress;
  const last = start + handled === statement.transactionsCount;
  const add = (column: SQLiteColumn, n: number) => sql`${column} + ${n}`;
  const advance = orm
    .update(bankStatements)
    .set({
      handled: guarded(sql`${bankStatements.handled} = ${start}`, start + handled, "statement_position"),
      matchedCount: add(bankStatements.matchedCount, counts.matched),
      unmatchedCount: add(bankStatements.unmatchedCount, counts.unmatched),
      duplicateCount: add(bankStatements.duplicateCount, counts.duplicate),
      progressedAt: lastAt,
      ...(last ? { state: "processed" as const, processedAt: lastAt } : {}),
    })
    .where(eq(bankStatements.id, statement.id));
  const results = await batchNamed(orm, {
    transactions: rows,
    payments: groups(paymentRows, PAYMENTS_A_STATEMENT).map((group) => orm.insert(payments).values(group)),
    allocations,
    events: groups(eventRows, EVENTS_A_STATEMENT).map((group) => orm.insert(events).values(group).returning()),
    statement: [advance],
  });
  queries += Object.values(results).reduce((sum, group) => sum + group.length, 0);
  return { handled, events: (results.events as EventRow[][]).flat(), lastAt, queries };
}
