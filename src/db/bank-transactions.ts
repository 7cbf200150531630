import { and, eq, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { TransactionState } from "../domain/payments";
import type { PageRequest } from "../pagination/query";
import type { RequestDatabase } from "./client";
import { compile, preparer, lazily, one, param } from "./compiled";
import { keptTotal, pageReads, readPage } from "./keyset";
import { bankTransactions, type BankTransactionRow } from "./schema";

// docs/api.md part 15: the bank transactions, read by id and newest first, by state and by statement.

const byId = lazily(() =>
  compile<BankTransactionRow>(
    preparer()
      .select()
      .from(bankTransactions)
      .where(eq(bankTransactions.id, param("id")))
      .prepare(),
  ),
);

/** The transaction `id`, for a route's load step. */
export const transactionRead = (id: string) => one(byId(), { id });

// One set of statements per filter combination, each on its own index (as db/invoices.ts's lists).
function listReads(byState: boolean, byStatement: boolean) {
  const match = (column: SQLiteColumn, name: string): SQL => eq(column, param(name));
  return pageReads<BankTransactionRow>({
    table: bankTransactions,
    where:
      and(
        byStatement ? match(bankTransactions.bankStatementId, "statement") : undefined,
        byState ? match(bankTransactions.state, "state") : undefined,
      ) ?? sql`1 = 1`,
    total: byStatement
      ? keptTotal("statement_transactions", param("statement"), param("filter"))
      : keptTotal("bank_transactions", "", param("filter")),
    key: [bankTransactions.createdAt, bankTransactions.id],
  });
}

const shapes = [false, true].flatMap((byState) =>
  [false, true].map((byStatement) => lazily(() => listReads(byState, byStatement))),
);

/** One page of the transactions, newest first, filtered by state and statement, and their total. */
export function listTransactions(
  db: RequestDatabase,
  { state, statementId }: { state?: TransactionState; statementId?: string },
  page: PageRequest,
) {
  const reads = shapes[(state === undefined ? 0 : 2) + (statementId === undefined ? 0 : 1)]!();
  return readPage(db, reads, { state, statement: statementId, filter: state ?? "" }, page);
}
