// docs/api.md part 16: SEPA Core direct debits, the pure part: their states and sequence types, the ids
// a collection writes, when a mandate has expired and which return reasons allow a re-collection.

/** A collection is `pending` until every debit in it is paid or returned (`settled`). */
export const COLLECTION_STATES = ["pending", "settled"] as const;
export type CollectionState = (typeof COLLECTION_STATES)[number];

/** A debit sent in a collection: `pending` until its settlement pays it or a return reverses it. */
export type DebitState = "pending" | "paid" | "returned";

/** FRST for the first collection under a mandate reference, RCUR once an earlier one exists, whatever its outcome. */
export type SequenceType = "FRST" | "RCUR";

/** The most debits one collection holds: a batch D1 carries, and a file a bank takes at once. */
export const MAX_DEBITS_PER_COLLECTION = 1000;

/** An ISO 20022 return reason code (ExternalReturnReason1Code: AM04, MD01, MD06, ...): four letters and digits. */
export type ReturnReason = string;

/** `INV-2026-000004` the first time, `INV-2026-000004-R2` the second, ...: no end-to-end id is sent twice. */
export const endToEndIdOf = (invoiceNumber: string, earlierDebits: number): string =>
  earlierDebits === 0 ? invoiceNumber : `${invoiceNumber}-R${earlierDebits + 1}`;

/** A collection's message id, from its id: DD and 26 hex digits (its payment information ids append -FRST, -RCUR). */
export const messageIdOf = (collectionId: string): string =>
  `DD${collectionId.replaceAll("-", "").slice(0, 26).toUpperCase()}`;

export const paymentInformationIdOf = (messageId: string, sequence: SequenceType): string => `${messageId}-${sequence}`;

/** The collection and sequence type a payment information id names, if it is one of ours. */
export function blockOf(paymentInformationId: string): { messageId: string; sequence: SequenceType } | undefined {
  const match = /^(DD[0-9A-F]{26})-(FRST|RCUR)$/.exec(paymentInformationId);
  return match ? { messageId: match[1]!, sequence: match[2] as SequenceType } : undefined;
}

/**
 * A mandate with no collection for 36 months has expired (SEPA Core rulebook): counted from its last
 * collection, or from its signature when it was never used.
 */
export const hasExpired = (lastUsedOn: string, collectionDate: string): boolean => {
  const [year, month, day] = lastUsedOn.split("-").map(Number) as [number, number, number];
  return collectionDate >= new Date(Date.UTC(year + 3, month - 1, day)).toISOString().slice(0, 10);
};

/** A mandate reference's last collection: its date and the account it debited. */
export interface MandateUse {
  on: string;
  iban: string;
}

/** A SEPA mandate: its reference and signature date, and the account and bank it debits. */
export interface Mandate {
  reference: string;
  signedOn: string;
  iban: string;
  bic: string | null;
}

/** A mandate the invoice may be debited under, and whether a return other than AM04 stopped it on its account. */
export interface Candidate {
  mandate: Mandate | null;
  stopped: boolean;
}

/**
 * The mandate a collection on `date` debits an invoice under: the first candidate (the one the invoice
 * kept when it was issued, then the customer's profile's now) that exists, was not stopped by a return
 * other than AM04 (its reference on its account, for any invoice: the debtor disputed or revoked it),
 * and has not expired (`lastUsedOn`: the mandate's last collection, undefined: never). None: the
 * invoice is left out until the profile names another mandate reference or IBAN.
 */
export function mandateFor(
  candidates: Candidate[],
  lastUsedOn: (reference: string) => string | undefined,
  date: string,
): Mandate | undefined {
  const usable = candidates.find(
    ({ mandate, stopped }) =>
      mandate !== null && !stopped && !hasExpired(lastUsedOn(mandate.reference) ?? mandate.signedOn, date),
  );
  return usable?.mandate ?? undefined;
}
