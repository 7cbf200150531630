import { sql, type SQL } from "drizzle-orm";

/**
 * Guards: what a write holds to inside its own batch, so that when a concurrent request changed what
 * it read, D1 rolls the whole batch back instead of writing over the change. Every guard has a name,
 * and this module is the one place that recognises a failed one (db/client.ts asks `failedGuard`):
 * it becomes a WriteConflict carrying the name, which a handler may map to the error docs/api.md gives
 * (`refused` of writes/commit.ts); unmapped, it answers 409 conflict. Any other failure of the database
 * (another constraint, an SQL error) stays a bug: a 500, never a silent 409.
 *
 * Two kinds:
 * - checked: a value the write stores is `guarded(...)` (nested for several): when its condition
 *   fails, SQLite evaluates a JSON path no JSON function accepts, 'guard:<name>', and
 *   fails with "bad JSON path: 'guard:<name>'". CASE evaluates only the branch it takes, so a guard
 *   that holds costs nothing, and one that fails reads no more rows than its condition.
 * - unique: a UNIQUE index that a concurrent write breaks, known by the columns SQLite names.
 *
 * To add a guard: name it in `CheckedGuard` and write it with `guarded`, or name its
 * index's columns in `UNIQUE`; nothing else recognises it. Then map its name where a handler can
 * say why (or let it stand as a 409).
 */
type CheckedGuard =
  /** updateIfUnchanged (db/client.ts): nobody changed the row since it was read (its updated_at). */
  | "unchanged"
  /** An entry's change of its order (db/entries.ts): the order is still a draft. */
  | "order_draft"
  /** Deleting an entry (db/entries.ts): the entry is still there. */
  | "entry_exists"
  /** Adding an entry (db/entries.ts): the order has room for one more. */
  | "entries_room"
  /** Adding a webhook endpoint (db/webhook-endpoints.ts): the customer has room for one more. */
  | "webhook_endpoints_room"
  /** Issuing an invoice (db/billing-profiles.ts): the billing profile is as its checks read it. */
  | "profile_unchanged"
  /** Allocating money to an invoice (writes/payments.ts): it is open, with the allocated amount read. */
  | "invoice_allocation"
  /** Allocating a bank transaction's money (writes/payments.ts): it has the allocated amount read. */
  | "transaction_allocation"
  /** A statement's transaction (src/payments/rows.ts): no stored one is the same transfer by its content. */
  | "transaction_claimed"
  /** A statement's transaction (src/payments): the statement has handled the transactions before it. */
  | "statement_position"
  /** A direct debit's settlement or return (src/payments/direct-debits.ts): the debit is as read. */
  | "debit_unchanged"
  /** A return (writes/payments.ts): the payment it reverses is not returned yet. */
  | "payment_not_returned"
  /** Paying, cancelling or collecting an invoice: no direct debit collection holds it (writes/invoices.ts). */
  | "invoice_not_collected"
  /** A delivery's outcome (src/deliveries): it is in the state and attempt its consumer read. */
  | "delivery_unchanged"
  /** The dunning run or a hold (db/dunning.ts): the invoice's dunning row is as read. */
  | "dunning_unchanged"
  /** The dunning run or a hold (db/dunning.ts): the invoice is in the state, allocation and dunning state read. */
  | "invoice_dunned";

/** UNIQUE indexes a concurrent write breaks: the columns SQLite names when one fails (db/schema.ts) → guard. */
const UNIQUE = {
  /** One live invoice of each kind per card order (invoices_live_voucher, invoices_order_service). */
  "invoices.order_id": "order_invoice",
  "invoices.order_id, invoices.kind": "order_invoice",
  /** A bank transaction already known (the same file twice, overlapping statements). */
  "bank_transactions.dedupe_key": "transaction_known",
  /** An invoice taken by two collections made at once (direct_debits_end_to_end). */
  "direct_debits.end_to_end_id": "debit_taken",
  /** One stored response per principal's Idempotency-Key. */
  "idempotency_keys.principal, idempotency_keys.key": "idempotency_key",
  /** An invoice's first dunning row, written by two at once (docs/api.md part 18). */
  "dunnings.invoice_id": "dunning_taken",
  /** A reminder level made twice (reminders_invoice_level): never a level twice. */
  "reminders.invoice_id, reminders.level": "reminder_taken",
} as const;

export type GuardName = CheckedGuard | (typeof UNIQUE)[keyof typeof UNIQUE];

/**
 * `value` while `holds` is true; otherwise the guard trips: SQLite fails the statement, and so its batch.
 * A template: drizzle has no builder for CASE, nor for a call of json_extract.
 */
export const guarded = (holds: SQL, value: unknown, name: CheckedGuard): SQL =>
  sql`CASE WHEN ${holds} THEN ${value} ELSE json_extract('{}', ${`guard:${name}`}) END`;

const FAILED = /'guard:(\w+)'|UNIQUE constraint failed: ([^:]+)/;

/** The guard that a database error says failed, if any: the one place that reads the error's text. */
export function failedGuard(message: string): GuardName | undefined {
  const failed = FAILED.exec(message);
  return (failed?.[1] as CheckedGuard | undefined) ?? UNIQUE[failed?.[2] as keyof typeof UNIQUE];
}
