import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import * as z from "zod/mini";
import { formatCents } from "../domain/money";
import { paymentReferenceOf } from "../domain/payment-reference";
import { chargesOpenOf, SETTLEMENT_METHODS, type SettlementMethod } from "../domain/payments";
import { bankTransactions } from "./bank-transaction";
import { date, dateTime, money } from "./formats";
import { invoices, type InvoiceRow } from "./invoice";
import { resource } from "./resource";

// A payment (docs/api.md part 15): an allocation of money to an invoice, from a bank transaction, a
// collected direct debit, or `pay`; reversed (returned_at) when a direct debit comes back. Never
// deleted. `customer_id` is the invoice's customer: a payment belongs to it.

export const payments = sqliteTable(
  "payments",
  {
    id: text("id").primaryKey(),
    invoiceId: text("invoice_id")
      .notNull()
      .references(() => invoices.id),
    invoiceNumber: text("invoice_number").notNull(),
    customerId: text("customer_id").notNull(),
    // Cents.
    amount: integer("amount").notNull(),
    method: text("method").$type<SettlementMethod>().notNull(),
    bankTransactionId: text("bank_transaction_id").references(() => bankTransactions.id),
    bookedOn: text("booked_on").notNull(),
    returnedAt: text("returned_at"),
    returnReason: text("return_reason"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    index("payments_invoice_created").on(t.invoiceId, t.createdAt, t.id),
    // For the foreign key: without it, every bank transaction stored scans the payments for one of its.
    index("payments_transaction").on(t.bankTransactionId),
  ],
);

export type PaymentRow = typeof payments.$inferSelect;

const payment = resource<PaymentRow>()(
  "Payment",
  (f) => ({
    id: f.column(z.string),
    type: f.from(
      () => z.literal("payment"),
      () => "payment" as const,
    ),
    invoice_id: f.column(z.string),
    invoice_number: f.column(z.string),
    amount: f.from(money, (row) => formatCents(row.amount)),
    method: f.column(() => z.enum(SETTLEMENT_METHODS)),
    bank_transaction_id: f.column(() =>
      z.nullable(z.string().register(z.globalRegistry, { description: "Null for a manual payment." })),
    ),
    booked_on: f.column(() =>
      date().register(z.globalRegistry, { description: "The bank's booking date; a manual one's, the day of `pay`." }),
    ),
    returned_at: f.column(() =>
      z.nullable(dateTime().register(z.globalRegistry, { description: "When a return reversed it (part 16)." })),
    ),
    return_reason: f.column(() => z.nullable(z.string())),
    created_at: f.column(dateTime),
  }),
  "Money allocated to an invoice.",
);

export const Payment = payment.schema;
export const toPayment = payment.show;

/** What an invoice's balance shows: its gross amount, what is allocated of it, and what is still open. */
const balance = resource<Pick<InvoiceRow, "id" | "number" | "grossAmount" | "allocatedAmount" | "chargesAmount">>()(
  "InvoiceBalance",
  (f) => ({
    type: f.from(
      () => z.literal("invoice_balance"),
      () => "invoice_balance" as const,
    ),
    invoice_id: f.from(z.string, (row) => row.id),
    payment_reference: f.from(
      () => z.string().register(z.globalRegistry, { description: "The invoice's ISO 11649 RF reference." }),
      (row) => paymentReferenceOf(row.number),
    ),
    gross_amount: f.from(money, (row) => formatCents(row.grossAmount ?? 0)),
    allocated_amount: f.from(money, (row) => formatCents(row.allocatedAmount)),
    open_amount: f.from(money, (row) => formatCents(Math.max(0, (row.grossAmount ?? 0) - row.allocatedAmount))),
    charges_amount: f.from(
      () =>
        money().register(z.globalRegistry, {
          description: "Interest and fees the latest reminder claimed (part 18); they carry no VAT.",
        }),
      (row) => formatCents(row.chargesAmount),
    ),
    charges_open_amount: f.from(
      () =>
        money().register(z.globalRegistry, {
          description: "What of the charges is unpaid: a payment goes to the open amount first, then to them.",
        }),
      (row) => formatCents(chargesOpenOf(row)),
    ),
  }),
  "What is paid of an invoice, and what is still open.",
);

export const InvoiceBalance = balance.schema;
export const toInvoiceBalance = balance.show;
