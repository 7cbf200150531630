// docs/api.md part 15: how money comes in. Every allowed set of a statement, a bank transaction and a
// payment lives here.

/** A bank statement is read and matched off the request: `processing` until it is `processed` or `failed`. */
export const STATEMENT_STATES = ["processing", "processed", "failed"] as const;
export type StatementState = (typeof STATEMENT_STATES)[number];

/**
 * A bank transaction's state follows from its amounts: all allocated (`matched`), some (`overpaid`: the
 * rest is a credit of the customer), none (`unmatched`: a person decides); `ignored`: nothing of ours to
 * match (a debit, another currency, an entry not booked, a reversal without return information).
 */
export const TRANSACTION_STATES = ["matched", "overpaid", "unmatched", "ignored"] as const;
export type TransactionState = (typeof TRANSACTION_STATES)[number];

/**
 * How a payment came (its `method`): by bank (a credit transfer matched, or allocated by a person), a
 * collected direct debit, or `pay` (manual).
 */
export const SETTLEMENT_METHODS = ["bank_transfer", "direct_debit", "manual"] as const;
export type SettlementMethod = (typeof SETTLEMENT_METHODS)[number];

/** The state of a transaction that is not ignored, from what of its amount is allocated. */
export const transactionStateOf = (amount: number, allocated: number): TransactionState =>
  allocated === 0 ? "unmatched" : allocated >= amount ? "matched" : "overpaid";

/**
 * docs/api.md part 18: the charges (interest and fees the latest reminder claimed) not yet paid, in cents.
 * A payment goes to the open amount first, so what is allocated beyond the gross amount pays charges.
 */
export const chargesOpenOf = (invoice: {
  grossAmount: number | null;
  allocatedAmount: number;
  chargesAmount: number;
}): number => Math.max(0, invoice.chargesAmount - Math.max(0, invoice.allocatedAmount - (invoice.grossAmount ?? 0)));

/** The largest statement file the service takes (docs/api.md part 3: 413 beyond). */
export const STATEMENT_FILE_LIMIT_BYTES = 10 * 1024 * 1024;
