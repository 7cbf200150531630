import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { CardOrderState, PaymentMethod, VoucherCategory } from "../domain/card-orders";
import type { EventType } from "../domain/events";
import type { InvoiceKind, InvoiceState } from "../domain/invoices";
import type { DocumentLanguage, VatCategory } from "../domain/einvoice";

// Timestamps are stored as the exact wire string (`Date.toISOString()`): it sorts correctly as text
// and needs no conversion on the way out. Dates are `YYYY-MM-DD`.

export const cardOrders = sqliteTable(
  "card_orders",
  {
    id: text("id").primaryKey(),
    customerId: text("customer_id").notNull(),
    state: text("state").$type<CardOrderState>().notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    submittedAt: text("submitted_at"),
    productionStartedAt: text("production_started_at"),
    deliveredAt: text("delivered_at"),
    description: text("description"),
    invoiceReference: text("invoice_reference"),
    costCenter: text("cost_center"),
    paymentMethod: text("payment_method").$type<PaymentMethod>().notNull(),
    voucherCategory: text("voucher_category").$type<VoucherCategory>().notNull(),
    // Copied from the invoices when they are linked: invoice numbers never change, and reading them
    // here keeps a list page from joining three invoices per row.
    invoiceId: text("invoice_id"),
    invoiceNumber: text("invoice_number"),
    productionInvoiceId: text("production_invoice_id"),
    productionInvoiceNumber: text("production_invoice_number"),
    shippingInvoiceId: text("shipping_invoice_id"),
    shippingInvoiceNumber: text("shipping_invoice_number"),
    // How many entries the order has and their amounts' sum in cents: kept by triggers on
    // card_order_entries (drizzle/0003_entry_triggers.sql), so that they always agree with the rows.
    entriesCount: integer("entries_count").notNull().default(0),
    entriesAmount: integer("entries_amount").notNull().default(0),
  },
  (t) => [
    index("card_orders_customer_created").on(t.customerId, t.createdAt, t.id),
    index("card_orders_customer_state_created").on(t.customerId, t.state, t.createdAt, t.id),
  ],
);

export const invoices = sqliteTable(
  "invoices",
  {
    id: text("id").primaryKey(),
    customerId: text("customer_id").notNull(),
    number: text("number").notNull(),
    state: text("state").$type<InvoiceState>().notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    bookedOn: text("booked_on").notNull(),
    creditor: text("creditor").notNull(),
    dueOn: text("due_on").notNull(),
    paidAt: text("paid_at"),
    cancellationNumber: text("cancellation_number"),
    cancelledAt: text("cancelled_at"),
    // The business day of the cancellation (docs/api.md part 14), the credit note's issue date; NULL on
    // invoices cancelled before that part, whose credit note keeps the UTC day of cancelled_at.
    cancelledOn: text("cancelled_on"),
    orderId: text("order_id")
      .notNull()
      .references(() => cardOrders.id),
    // The card order's current state (`orders[].state`), moved by the order's transitions in the
    // same batch: read with the invoice instead of looked up once per listed invoice.
    orderState: text("order_state").$type<CardOrderState>().notNull(),
    reference: text("reference"),
    costCenter: text("cost_center"),
    paymentMethod: text("payment_method").$type<PaymentMethod>().notNull(),
    kind: text("kind").$type<InvoiceKind>().notNull().default("voucher"),
    // Cents; fixed when the invoice is made (docs/api.md part 10).
    netAmount: integer("net_amount"),
    grossAmount: integer("gross_amount"),
    recipient: text("recipient"),
    servicePeriodStart: text("service_period_start"),
    servicePeriodEnd: text("service_period_end"),
    // What the invoice's documents show of the two parties, as they were in the batch that issued it
    // (JSON text, src/documents/model.ts): the CREDITOR_* variables and the customer's billing profile.
    // NULL on invoices issued before e-invoices existed, whose documents answer 409.
    seller: text("seller"),
    buyer: text("buyer"),
    // The number of its lines (`total_entries` of GET /invoices/{id}/lines), fixed with them.
    linesCount: integer("lines_count").notNull().default(0),
  },
  (t) => [
    uniqueIndex("invoices_number").on(t.number),
    uniqueIndex("invoices_cancellation_number").on(t.cancellationNumber),
    index("invoices_order_created").on(t.orderId, t.createdAt, t.id),
    // At most one live voucher invoice per card order, and one production and one shipping invoice:
    // the constraints that make a concurrent second invoice of the same kind fail.
    uniqueIndex("invoices_live_voucher").on(t.orderId).where(sql`${t.kind} = 'voucher' AND ${t.state} <> 'cancelled'`),
    uniqueIndex("invoices_order_service").on(t.orderId, t.kind).where(sql`${t.kind} <> 'voucher'`),
    index("invoices_customer_created").on(t.customerId, t.createdAt, t.id),
    index("invoices_customer_state_created").on(t.customerId, t.state, t.createdAt, t.id),
  ],
);

/** A voucher card of a card order (docs/api.md part 10). */
export const cardOrderEntries = sqliteTable(
  "card_order_entries",
  {
    id: text("id").primaryKey(),
    orderId: text("order_id")
      .notNull()
      .references(() => cardOrders.id),
    voucherOwnerId: text("voucher_owner_id").notNull(),
    cardHolderName: text("card_holder_name").notNull(),
    // Cents.
    amount: integer("amount").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("card_order_entries_order_created").on(t.orderId, t.createdAt, t.id)],
);

/** What an invoice bills, one row a line, written in the invoice's own batch and never changed. */
export const invoiceLines = sqliteTable(
  "invoice_lines",
  {
    invoiceId: text("invoice_id")
      .notNull()
      .references(() => invoices.id),
    position: integer("position").notNull(),
    description: text("description").notNull(),
    quantity: integer("quantity").notNull(),
    // Cents.
    unitPrice: integer("unit_price").notNull(),
    netAmount: integer("net_amount").notNull(),
    vatCategory: text("vat_category").$type<VatCategory>().notNull(),
    vatPercent: text("vat_percent").notNull(),
    cardOrderEntryId: text("card_order_entry_id"),
  },
  (t) => [primaryKey({ columns: [t.invoiceId, t.position] })],
);

/** A customer's invoicing data (docs/api.md part 13), copied onto each invoice when it is issued. */
export const billingProfiles = sqliteTable("billing_profiles", {
  customerId: text("customer_id").primaryKey(),
  legalName: text("legal_name").notNull(),
  street: text("street").notNull(),
  postcode: text("postcode").notNull(),
  city: text("city").notNull(),
  countryCode: text("country_code").notNull(),
  vatId: text("vat_id"),
  buyerReference: text("buyer_reference"),
  leitwegId: text("leitweg_id"),
  // Required since docs/api.md part 14; NULL only on a profile stored before it (submit refuses that one).
  email: text("email"),
  directDebitIban: text("direct_debit_iban"),
  directDebitBic: text("direct_debit_bic"),
  directDebitMandateReference: text("direct_debit_mandate_reference"),
  directDebitMandateSignedOn: text("direct_debit_mandate_signed_on"),
  documentLanguage: text("document_language").$type<DocumentLanguage>().notNull().default("de"),
  updatedAt: text("updated_at").notNull(),
});

/**
 * The total of every list (`total_entries`), kept by triggers (drizzle/0006_list_counts.sql) so that
 * no write path can forget one, and read as one row instead of counting rows, which D1 bills for
 * every row it passes. A list is (`list`, `scope`: whose, `filter`: "" for all, or the filter's
 * value): card orders and invoices by customer and state, an order's invoices by state, events by
 * customer and type, devices by owner, webhook endpoints by customer. An order's entries are
 * counted on the order itself (entries_count).
 */
/** The lists whose totals the triggers of drizzle/0006_list_counts.sql keep, by the names they use. */
export type CountedList = "card_orders" | "invoices" | "order_invoices" | "events" | "devices" | "webhook_endpoints";

export const listCounts = sqliteTable(
  "list_counts",
  {
    list: text("list").notNull(),
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

export const notificationTokens = sqliteTable(
  "notification_tokens",
  {
    ownerId: text("owner_id").notNull(),
    deviceIdentifier: text("device_identifier").notNull(),
    value: text("value").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.ownerId, t.deviceIdentifier] }),
    // A token value belongs to one device of one owner at a time.
    uniqueIndex("notification_tokens_value").on(t.value),
    index("notification_tokens_owner_created").on(t.ownerId, t.createdAt, t.deviceIdentifier),
    // The owner's least recently updated device, which a registration beyond the limit replaces.
    index("notification_tokens_owner_updated").on(t.ownerId, t.updatedAt, t.deviceIdentifier),
  ],
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
  },
  (t) => [primaryKey({ columns: [t.principal, t.key] }), index("idempotency_keys_expires").on(t.expiresAt)],
);

export type CardOrderRow = typeof cardOrders.$inferSelect;
export type InvoiceRow = typeof invoices.$inferSelect;
export type CardOrderEntryRow = typeof cardOrderEntries.$inferSelect;
export type InvoiceLineRow = typeof invoiceLines.$inferSelect;
export type BillingProfileRow = typeof billingProfiles.$inferSelect;
export type NotificationTokenRow = typeof notificationTokens.$inferSelect;

/**
 * The outbox: every change a client may react to, written in the batch of the change (docs/api.md
 * part 11). `data` is the resource after the change as GET shows it, as JSON text. `dispatched_at`
 * is set when the queue's consumer has the event; until then the Cron Trigger sends it again.
 */
export const events = sqliteTable(
  "events",
  {
    id: text("id").primaryKey(),
    customerId: text("customer_id").notNull(),
    type: text("type").$type<EventType>().notNull(),
    createdAt: text("created_at").notNull(),
    data: text("data").notNull(),
    dispatchedAt: text("dispatched_at"),
  },
  (t) => [
    index("events_customer_created").on(t.customerId, t.createdAt, t.id),
    index("events_customer_type_created").on(t.customerId, t.type, t.createdAt, t.id),
    // The retention sweep (30 days), and the Cron Trigger's search for what was never handed over.
    index("events_created").on(t.createdAt),
    index("events_undispatched").on(t.createdAt).where(sql`${t.dispatchedAt} IS NULL`),
  ],
);

/** Where a customer's events go (Standard Webhooks). The signing secret is stored encrypted. */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    customerId: text("customer_id").notNull(),
    url: text("url").notNull(),
    // JSON array of event types, or ["*"].
    eventTypes: text("event_types").notNull(),
    // AES-GCM under a key derived from APP_SECRET, sealed for this id: a database read alone does not reveal it.
    encryptedSecret: text("encrypted_secret").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("webhook_endpoints_customer_created").on(t.customerId, t.createdAt, t.id)],
);

export type EventRow = typeof events.$inferSelect;
export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
