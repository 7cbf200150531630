import type { StatementTransaction } from "./camt053";

// docs/api.md part 15: when a transaction is one already stored. With the entry's AcctSvcrRef (the
// bank's own reference): its account, that reference and its place among the entry's details. Without
// one: booking date, amount, direction, end-to-end id, references, counterparty IBAN, and its ordinal
// among the identical ones of its statement (two equal transfers on one day are two). Stored hashed.

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The dedupe key of each of a statement's transactions, in order. */
export async function dedupeKeys(accountIban: string, transactions: StatementTransaction[]): Promise<string[]> {
  const seen = new Map<string, number>();
  const keys = transactions.map((tx) => {
    if (tx.entryReference !== null) return JSON.stringify([accountIban, "ref", tx.entryReference, tx.detailIndex]);
    const identity = JSON.stringify([
      accountIban,
      tx.bookedOn,
      tx.amountCents,
      tx.creditDebit,
      tx.endToEndId,
      tx.creditorReference,
      tx.remittanceInformation,
      tx.counterpartyIban,
    ]);
    const ordinal = (seen.get(identity) ?? 0) + 1;
    seen.set(identity, ordinal);
    return JSON.stringify([identity, ordinal]);
  });
  return Promise.all(keys.map(sha256));
}
