import { eq, notExists } from "drizzle-orm";
import type { Database } from "../db/client";
import { guarded } from "../db/guards";
import { bankTransactions, type BankTransactionRow } from "../db/schema";
import type { TransactionState } from "../domain/payments";
import type { StatementTransaction } from "./camt053";
import type { DedupeKeys } from "./dedupe";

// docs/api.md part 15: a statement's transaction as stored, and its insert, which claims the transfer.

/** The stored row of a statement's transaction, as its matching left it. */
export const transactionRow = (
  tx: StatementTransaction,
  where: { id: string; statementId: string; at: string; position: number; keys: DedupeKeys },
  outcome: { state: TransactionState; allocated: number; customerId: string | null },
): BankTransactionRow => ({
  id: where.id,
  bankStatementId: where.statementId,
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
  state: outcome.state,
  allocatedAmount: outcome.allocated,
  customerId: outcome.customerId,
  createdAt: where.at,
  dedupeKey: where.keys.key,
  contentKey: where.keys.content,
  position: where.position,
  returnReason: tx.returnReason,
});

/**
 * The row's insert, claiming the transfer inside its batch: the unique dedupe key holds against one
 * stored with the same key; when either of the two lacks AcctSvcrRef, the content key decides (part 15),
 * which no unique index can hold (two equal transfers with AcctSvcrRef are two). So the insert holds
 * to it (guard `transaction_claimed`): one with AcctSvcrRef, to no stored one without it whose dedupe
 * key is its content key; one without, to no stored one of its content key. Two statements processed
 * at once, one with the reference and one without, so store the transfer once: D1 runs one batch at a time.
 */
export function transactionInsert(orm: Database, row: BankTransactionRow, keys: DedupeKeys) {
  const same = orm
    .select({ id: bankTransactions.id })
    .from(bankTransactions)
    .where(
      keys.referenced ? eq(bankTransactions.dedupeKey, keys.content) : eq(bankTransactions.contentKey, keys.content),
    );
  return orm
    .insert(bankTransactions)
    .values({ ...row, position: guarded(notExists(same), row.position, "transaction_claimed") });
}
