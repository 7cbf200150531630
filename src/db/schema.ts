import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

// The tables. Each resource's own is defined with its wire shape (src/schemas/<resource>.ts: one
// definition per resource) and exported here too, for db/; the tables below are the service's own
// bookkeeping. drizzle-kit reads this file and src/schemas/ (drizzle.config.ts). The direct debit
// collections' tables are not exported here: only the jobs Worker uses them, and the API Worker's
// bundle, which imports this file, would carry their definitions (docs/api.md part 13, 64 KiB).
// Timestamps are stored as the exact wire string (`Date.toISOString()`): it sorts correctly as text
// and needs no conversion on the way out. Dates are `YYYY-MM-DD`.

export { bankStatements, type BankStatementRow } from "../schemas/bank-statement";
export { bankTransactions, type BankTransactionRow } from "../schemas/bank-transaction";
export { billingProfiles, type BillingProfileRow } from "../schemas/billing-profile";
export { cardOrders, type CardOrderRow } from "../schemas/card-order";
export { cardOrderEntries, type CardOrderEntryRow } from "../schemas/entry";
export { events, type EventRow } from "../schemas/event";
export { invoices, type InvoiceRow } from "../schemas/invoice";
export { invoiceLines, type InvoiceLineRow } from "../schemas/invoice-line";
export { invoiceDeliveries, type InvoiceDeliveryRow } from "../schemas/invoice-delivery";
export { notificationTokens, type NotificationTokenRow } from "../schemas/notification-device";
export { payments, type PaymentRow } from "../schemas/payment";
export { webhookEndpoints, type WebhookEndpointRow } from "../schemas/webhook-endpoint";

/**
 * Every list whose total the migrations' triggers keep in list_counts, by the name they keep it under
 * (its `list` column), as `keptTotal` (db/keyset.ts) takes it: a name not here does not compile, where a
 * bare string with a typo read as a total of 0. test/kept-totals.test.ts holds this to the triggers: the
 * names they write are exactly these. A new list's triggers (its migration) add its name here.
 */
export const keptLists = {
  cardOrders: "card_orders",
  invoices: "invoices",
  orderInvoices: "order_invoices",
  events: "events",
  devices: "devices",
  webhookEndpoints: "webhook_endpoints",
  bankStatements: "bank_statements",
  bankTransactions: "bank_transactions",
  statementTransactions: "statement_transactions",
  invoicePayments: "invoice_payments",
  directDebitCollections: "direct_debit_collections",
  invoiceDeliveries: "invoice_deliveries",
  deliveriesOfInvoice: "deliveries_of_invoice",
  remindersOfInvoice: "reminders_of_invoice",
  // The accounts department's view (docs/api.md part 18, drizzle/0016_accounts_view.sql).
  allInvoices: "all_invoices",
  dunningInvoices: "dunning_invoices",
  openDue: "open_due",
} as const;

/** The name of a kept list (`keptLists`). */
export type KeptList = (typeof keptLists)[keyof typeof keptLists];

/**
 * The lists whose totals (`total_entries`) triggers keep (drizzle/0006_list_counts.sql, and the later
 * migrations' for theirs), by the names their triggers use (`card_orders`, `statement_transactions`,
 * ...): no write path can forget one, and a total is read as one row instead of counting rows, which
 * D1 bills for every row it passes. A list is (`list`, `scope`: whose, `filter`: "" for all, or the
 * filter's value). An order's entries are counted on the order itself (entries_count).
 */
export const listCounts = sqliteTable(
  "list_counts",
  {
    list: text("list").$type<KeptList>().notNull(),
    scope: text("scope").notNull(),
    filter: text("filter").notNull(),
    total: integer("total").notNull(),
  },
  (t) => [primaryKey({ columns: [t.list, t.scope, t.filter] })],
);

// Gapless numbering: one row per series ("INV", "CN") and business year (docs/api.md part 14), holding
// the last number taken.
export const numberSequences = sqliteTable(
  "number_sequences",
  {
    series: text("series").notNull(),
    year: integer("year").notNull(),
    last: integer("last").notNull(),
  },
  (t) => [primaryKey({ columns: [t.series, t.year] })],
);

export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    principal: text("principal").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    status: integer("status").notNull(),
    body: text("body").notNull(),
    expiresAt: text("expires_at").notNull(),
    /** The answer's Location, as the route's path and the resource's id (http/route.ts `location`): replayed too. */
    location: text("location"),
  },
  (t) => [primaryKey({ columns: [t.principal, t.key] }), index("idempotency_keys_expires").on(t.expiresAt)],
);
