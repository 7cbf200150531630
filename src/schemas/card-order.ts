import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import * as z from "zod/mini";
import {
  CARD_ORDER_STATE_LABELS,
  cardOrderLifecycle,
  PAYMENT_METHODS,
  VOUCHER_CATEGORIES,
  type CardOrderState,
  type PaymentMethod,
  type VoucherCategory,
} from "../domain/card-orders";
import { allows } from "../domain/lifecycle";
import { dateTime, oneOf, optionalText, requestBody } from "./formats";
import { namedRequest, namedResponse } from "./registry";
import { resource } from "./resource";

// A card order (docs/api.md parts 1, 5, 6 and 10): its table, its wire shape in the interface's order,
// and the body that creates one. Timestamps are stored as the exact wire string
// (`Date.toISOString()`), which sorts correctly as text and needs no conversion on the way out.

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

export type CardOrderRow = typeof cardOrders.$inferSelect;

const InvoiceLink = namedResponse("InvoiceLink", () =>
  z.strictObject({ id: z.string(), type: z.literal("invoice"), number: z.string() }),
);

const link = (id: string | null, number: string | null) =>
  id === null ? null : { id, type: "invoice" as const, number: number ?? "" };

const cardOrder = resource<CardOrderRow>()("CardOrder", (f) => ({
  id: f.column(() => z.string()),
  state: f.column(() => z.enum(cardOrderLifecycle.states)),
  state_label: f.from(
    () => z.enum(Object.values(CARD_ORDER_STATE_LABELS)),
    (row) => CARD_ORDER_STATE_LABELS[row.state],
  ),
  created_at: f.column(dateTime),
  updated_at: f.column(dateTime),
  submitted_at: f.column(() => z.nullable(dateTime())),
  production_started_at: f.column(() => z.nullable(dateTime())),
  delivered_at: f.column(() => z.nullable(dateTime())),
  is_cancellable: f.from(z.boolean, (row) => allows(cardOrderLifecycle, row.state, "cancel")),
  customer: f.from(
    () => z.nullable(z.string()),
    (row) => row.customerId,
  ),
  description: f.column(() => z.nullable(z.string())),
  invoice_reference: f.column(() => z.nullable(z.string())),
  cost_center: f.column(() => z.nullable(z.string())),
  payment_method: f.column(() => z.nullable(z.enum(PAYMENT_METHODS))),
  invoice: f.from(
    () => z.nullable(InvoiceLink),
    (row) => link(row.invoiceId, row.invoiceNumber),
  ),
  production_invoice: f.from(
    () => z.nullable(InvoiceLink),
    (row) => link(row.productionInvoiceId, row.productionInvoiceNumber),
  ),
  shipping_invoice: f.from(
    () => z.nullable(InvoiceLink),
    (row) => link(row.shippingInvoiceId, row.shippingInvoiceNumber),
  ),
  voucher_category: f.column(() => z.enum(VOUCHER_CATEGORIES)),
  entries_count: f.column(z.int),
}));

/** A card order on the wire: the fields of docs/api.md part 1, in its order. */
export const CardOrder = cardOrder.schema;
export const toCardOrder = cardOrder.show;

/** A new card order: its free texts at most 255 characters. */
export const CreateCardOrder = namedRequest("CreateCardOrder", () =>
  requestBody({
    voucher_category: oneOf(VOUCHER_CATEGORIES),
    description: optionalText(255),
    invoice_reference: optionalText(255),
    cost_center: optionalText(255),
    payment_method: oneOf(PAYMENT_METHODS),
  }),
);
