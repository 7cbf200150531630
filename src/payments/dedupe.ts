import type { StatementTransaction } from "./camt053";

// docs/api.md part 15: when a transaction is one already stored. Two keys, both stored, hashed:
// - the reference key: its account, the entry's AcctSvcrRef (the bank's own reference) and its place
//   among the entry's details; an entry without AcctSvcrRef has none (its dedupe key is its content key);
// - the content key: booking date, amount, direction, end-to-end id, references, counterparty IBAN, and
//   its ordinal among the identical ones of its statement (two equal transfers on one day are two).
// Two transactions are the same when both have a reference key and those agree; when either lacks one,
// when their content keys agree (a bank's file with the reference and another channel's without it pay
// once). Only a booked entry (Sts BOOK) makes a transaction known: a pending or informational one's keys
// carry its status, so that it is known only as what it was (the same file twice) and never makes the
// booked entry that follows it a duplicate.

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A transaction's keys: `key` (unique among the stored; the reference key, else the content key) and `content`. */
export interface DedupeKeys {
  key: string;
  content: string;
  /** Whether the entry has an AcctSvcrRef (`key` is then not the content key). */
  referenced: boolean;
}

/** The dedupe keys of each of a statement's transactions, in order. */
export async function dedupeKeys(accountIban: string, transactions: StatementTransaction[]): Promise<DedupeKeys[]> {
  const seen = new Map<string, number>();
  const keys = transactions.map((tx) => {
    // A booked transaction's values as they were always keyed; another status is another thing.
    const status = tx.status === "BOOK" ? [] : [tx.status];
    const identity = JSON.stringify([
      accountIban,
      tx.bookedOn,
      tx.amountCents,
      tx.creditDebit,
      tx.endToEndId,
      tx.creditorReference,
      tx.remittanceInformation,
      tx.counterpartyIban,
      ...status,
    ]);
    const ordinal = (seen.get(identity) ?? 0) + 1;
    seen.set(identity, ordinal);
    const content = JSON.stringify([identity, ordinal]);
    if (tx.entryReference === null) return { key: content, content, referenced: false };
    return {
      key: JSON.stringify([accountIban, "ref", tx.entryReference, tx.detailIndex, ...status]),
      content,
      referenced: true,
    };
  });
  return Promise.all(
    keys.map(async ({ key, content, referenced }) => {
      const contentHash = await sha256(content);
      return { key: referenced ? await sha256(key) : contentHash, content: contentHash, referenced };
    }),
  );
}
