import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import * as z from "zod/mini";
import { formatCents } from "../domain/money";
import { TRANSACTION_STATES, type TransactionState } from "../domain/payments";
import { bankStatements } from "./bank-statement";
import { amountInput, date, MAX_PAYMENT_CENTS, money, requestBody } from "./formats";
import { namedRequest } from "./registry";
import { resource } from "./resource";

// A bank transaction (docs/api.md part 15): one transaction detail of a statement's entry (an entry
// without details is one), and what was allocated of it. `dedupe_key` is what makes it the same as one
// already stored (the same file twice, overlapping statements); `position` its place in its statement.

export const bankTransactions = sqliteTable(
  "bank_transactions",
  {
    id: text("id").primaryKey(),
    bankStatementId: text("bank_statement_id")
      .notNull()
      .references(() => bankStatements.id),
    bookedOn: text("booked_on"),
    valueDate: text("value_date"),
    creditDebit: text("credit_debit").$type<"credit" | "debit">().notNull(),
    // Cents.
    amount: integer("amount").notNull(),
    currency: text("currency").notNull(),
    counterpartyName: text("counterparty_name"),
    counterpartyIban: text("counterparty_iban"),
    endToEndId: text("end_to_end_id"),
    creditorReference: text("creditor_reference"),
    remittanceInformation: text("remittance_information"),
    state: text("state").$type<TransactionState>().notNull(),
    allocatedAmount: integer("allocated_amount").notNull().default(0),
    customerId: text("customer_id"),
    createdAt: text("created_at").notNull(),
    // docs/api.md part 15, duplicates: with the entry's AcctSvcrRef, the key of that reference (else the
    // content key); the content key of its values and ordinal, which decides when either of two lacks one
    // (null: stored before it was kept).
    dedupeKey: text("dedupe_key").notNull(),
    contentKey: text("content_key"),
    position: integer("position").notNull(),
    returnReason: text("return_reason"),
  },
  (t) => [
    uniqueIndex("bank_transactions_dedupe").on(t.dedupeKey),
    index("bank_transactions_content").on(t.contentKey),
    index("bank_transactions_created").on(t.createdAt, t.id),
    index("bank_transactions_state_created").on(t.state, t.createdAt, t.id),
    index("bank_transactions_statement_created").on(t.bankStatementId, t.createdAt, t.id),
    // Rule 3 of the matching: whose is a counterparty's IBAN.
    index("bank_transactions_counterparty").on(t.counterpartyIban, t.customerId),
  ],
);

export type BankTransactionRow = typeof bankTransactions.$inferSelect;

/** What of a transaction a person may still allocate: none of an ignored one. */
export const unappliedOf = (row: Pick<BankTransactionRow, "state" | "amount" | "allocatedAmount">): number =>
  row.state === "ignored" ? 0 : row.amount - row.allocatedAmount;

const transaction = resource<BankTransactionRow>()(
  "BankTransaction",
  (f) => ({
    id: f.column(z.string),
    type: f.from(
      () => z.literal("bank_transaction"),
      () => "bank_transaction" as const,
    ),
    bank_statement_id: f.column(z.string),
    booked_on: f.column(() => z.nullable(date())),
    value_date: f.column(() => z.nullable(date())),
    credit_debit: f.column(() => z.enum(["credit", "debit"])),
    amount: f.from(money, (row) => formatCents(row.amount)),
    currency: f.column(z.string),
    counterparty_name: f.column(() => z.nullable(z.string())),
    counterparty_iban: f.column(() => z.nullable(z.string())),
    end_to_end_id: f.column(() => z.nullable(z.string())),
    creditor_reference: f.column(() =>
      z.nullable(z.string().register(z.globalRegistry, { description: "The structured creditor reference." })),
    ),
    remittance_information: f.column(() =>
      z.nullable(z.string().register(z.globalRegistry, { description: "The unstructured lines, joined by a space." })),
    ),
    state: f.column(() => z.enum(TRANSACTION_STATES)),
    allocated_amount: f.from(money, (row) => formatCents(row.allocatedAmount)),
    unapplied_amount: f.from(money, (row) => formatCents(unappliedOf(row))),
    customer: f.from(
      () => z.nullable(z.string().register(z.globalRegistry, { description: "Null until a match names one." })),
      (row) => row.customerId,
    ),
  }),
  "A transaction of a bank statement, and what of it is allocated to invoices.",
);

export const BankTransaction = transaction.schema;
export const toBankTransaction = transaction.show;

/** A person's allocation of what a transaction has unapplied to an open invoice. */
export const CreateAllocation = namedRequest("CreateAllocation", () =>
  requestBody({
    invoice_id: z.string({ error: "must be the id of an open invoice" }),
    amount: amountInput(1, MAX_PAYMENT_CENTS),
  }),
);
