import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import * as z from "zod/mini";
import { cardOrderLifecycle, PAYMENT_METHODS, type CardOrderState, type PaymentMethod } from "../domain/card-orders";
import { invoiceLifecycle, type InvoiceKind, type InvoiceState, type StoredDunningState } from "../domain/invoices";
import { formatCents } from "../domain/money";
import { cardOrders } from "./card-order";
import { date, dateTime, money, optionalText, requestBody } from "./formats";
import { namedRequest } from "./registry";
import { resource } from "./resource";

// An invoice (docs/api.md parts 1, 6, 10, 13 and 14): its table, its wire shape in the interface's
// order, and the body that creates a voucher invoice.

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
    // Cents of its payments not returned (docs/api.md part 15): its open amount is gross minus this.
    allocatedAmount: integer("allocated_amount").notNull().default(0),
    // Cents of default interest and fees claimed so far by its latest reminder (docs/api.md part 18).
    // Paid after the invoice: allocations beyond gross go to these, so what is still owed of them is
    // charges minus max(0, allocated - gross).
    chargesAmount: integer("charges_amount").notNull().default(0),
    // Its dunning's stored state (docs/api.md part 18): none, active, held or ended; the run and the
    // hold write it. A paid or cancelled invoice's dunning reads as settled whatever is stored here.
    dunningState: text("dunning_state").$type<StoredDunningState>().notNull().default("none"),
    // The direct debit collection whose debit of it is pending (docs/api.md part 16): until the debit is
    // settled or returned, the invoice is neither paid by hand, cancelled nor collected again.
    pendingCollection: text("pending_collection"),
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
    // The accounts department's view (docs/api.md part 18): every customer's invoices, by state (and
    // overdue: open ones), and the open ones by their dunning, newest first. The state index compares
    // NOCASE, and only statements that say `state = ? COLLATE NOCASE` (db/invoices.ts; the states are
    // lower case, so they match the same rows) can take it: without it, a plan with `state = 'open'`
    // and a range of its own (the collection's, on invoices_collectable) would take this index's
    // equality instead and sort. The literal 'open' in the lists' statements lets SQLite take the
    // partial indexes.
    index("invoices_created").on(t.createdAt, t.id),
    index("invoices_state_created").on(sql`${sql.identifier("state")} COLLATE NOCASE`, t.createdAt, t.id),
    index("invoices_open_dunning_created").on(t.dunningState, t.createdAt, t.id).where(sql`${t.state} = 'open'`),
    index("invoices_customer_open_dunning_created")
      .on(t.customerId, t.dunningState, t.createdAt, t.id)
      .where(sql`${t.state} = 'open'`),
    // What a direct debit collection takes (docs/api.md part 16): the open direct-debit invoices by due day.
    index("invoices_collectable").on(t.dueOn).where(sql`${t.paymentMethod} = 'direct_debit' AND ${t.state} = 'open'`),
    // What the daily dunning run finds first (docs/api.md part 18): open invoices not yet overdue, by due day.
    index("invoices_dunning_new").on(t.dueOn, t.id).where(sql`${t.state} = 'open' AND ${t.dunningState} = 'none'`),
  ],
);

export type InvoiceRow = typeof invoices.$inferSelect;

const amount = (cents: number | null) => (cents === null ? null : formatCents(cents));

const invoice = resource<InvoiceRow>()("Invoice", (f) => ({
  id: f.column(() => z.string()),
  type: f.from(
    () => z.literal("invoice"),
    () => "invoice" as const,
  ),
  number: f.column(() => z.string().register(z.globalRegistry, { pattern: "^INV-[0-9]{4}-[0-9]{6,}$" })),
  state: f.column(() => z.enum(invoiceLifecycle.states)),
  created_at: f.column(dateTime),
  updated_at: f.column(dateTime),
  booked_on: f.column(() => z.nullable(date())),
  service_period_start: f.column(() => z.nullable(date())),
  service_period_end: f.column(() => z.nullable(date())),
  creditor: f.column(() => z.string()),
  due_on: f.column(date),
  paid_at: f.column(() => z.nullable(dateTime())),
  cancellation_number: f.from(
    () =>
      z.string().register(z.globalRegistry, { description: '"" until the invoice is cancelled, then CN-YYYY-NNNNNN.' }),
    (row) => row.cancellationNumber ?? "",
  ),
  cancelled_at: f.column(() => z.nullable(dateTime())),
  gross_amount: f.from(
    () =>
      z.nullable(
        money().register(z.globalRegistry, { description: "EUR: net_amount plus VAT, rounded half up once." }),
      ),
    (row) => amount(row.grossAmount),
  ),
  net_amount: f.from(
    () => z.nullable(money().register(z.globalRegistry, { description: "EUR." })),
    (row) => amount(row.netAmount),
  ),
  recipient: f.column(() =>
    z.nullable(z.string().register(z.globalRegistry, { description: "The card order's customer." })),
  ),
  orders: f.from(
    () =>
      z.array(
        z.strictObject({ id: z.string(), type: z.literal("card_order"), state: z.enum(cardOrderLifecycle.states) }),
      ),
    (row) => [{ id: row.orderId, type: "card_order" as const, state: row.orderState }],
  ),
  reference: f.column(() => z.nullable(z.string())),
  cost_center: f.column(() => z.nullable(z.string())),
  payment_method: f.column(() => z.enum(PAYMENT_METHODS)),
}));

/** An invoice on the wire: the fields of docs/api.md part 1, in its order. */
export const Invoice = invoice.schema;
export const toInvoice = invoice.show;

/** A new invoice of a card order: its reference at most 255 characters. */
export const CreateInvoice = namedRequest("CreateInvoice", () =>
  requestBody({
    order_id: z.string({ error: "must be the id of one of the customer's card orders" }),
    reference: optionalText(255),
  }),
);
