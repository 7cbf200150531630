import * as z from "zod/mini";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import {
  DELIVERY_DOCUMENTS,
  DELIVERY_STATES,
  INVOICE_FORMATS,
  type DeliveryDocument,
  type DeliveryState,
  type InvoiceFormat,
} from "../domain/deliveries";
import { isEmailAddress } from "../domain/identifiers";
import { dateTime, oneOf, printableText, requestBody } from "./formats";
import { named } from "./registry";
import { resource } from "./resource";

// docs/api.md part 17: each document sent to the buyer by e-mail, one row per message.

export const invoiceDeliveries = sqliteTable(
  "invoice_deliveries",
  {
    id: text("id").primaryKey(),
    invoiceId: text("invoice_id").notNull(),
    /** The invoice's customer: whose events its changes are. */
    customerId: text("customer_id").notNull(),
    document: text("document").$type<DeliveryDocument>().notNull(),
    reminderId: text("reminder_id"),
    channel: text("channel").$type<"email">().notNull().default("email"),
    recipient: text("recipient").notNull(),
    format: text("format").$type<InvoiceFormat>().notNull(),
    state: text("state").$type<DeliveryState>().notNull(),
    attempts: integer("attempts").notNull().default(0),
    messageId: text("message_id"),
    error: text("error"),
    createdAt: text("created_at").notNull(),
    sentAt: text("sent_at"),
    updatedAt: text("updated_at").notNull(),
    /**
     * What caused an automatic delivery ("invoice", "credit_note", later "reminder:<id>"), unique per
     * invoice: never two deliveries for one cause. Null for one a client asked for (POST), which its
     * Idempotency-Key guards.
     */
    cause: text("cause"),
    /**
     * A pending delivery is not attempted before this time: its creation, then while an attempt runs
     * (a lease: a consumer that died mid-send leaves it to the next after this), or until its retry.
     */
    attemptAfter: text("attempt_after").notNull(),
  },
  (t) => [
    index("invoice_deliveries_invoice").on(t.invoiceId, t.createdAt, t.id),
    index("invoice_deliveries_created").on(t.createdAt, t.id),
    index("invoice_deliveries_state").on(t.state, t.createdAt, t.id),
    index("invoice_deliveries_due").on(t.state, t.attemptAfter),
    uniqueIndex("invoice_deliveries_message").on(t.messageId),
    uniqueIndex("invoice_deliveries_cause").on(t.invoiceId, t.cause),
  ],
);

export type InvoiceDeliveryRow = typeof invoiceDeliveries.$inferSelect;

const nullable = (description: string) => () => z.nullable(z.string()).register(z.globalRegistry, { description });

const delivery = resource<InvoiceDeliveryRow>()(
  "InvoiceDelivery",
  (f) => ({
    id: f.column(z.string),
    type: f.from(
      () => z.literal("invoice_delivery"),
      () => "invoice_delivery" as const,
    ),
    invoice_id: f.column(z.string),
    document: f.column(() => z.enum(DELIVERY_DOCUMENTS)),
    reminder_id: f.column(nullable("The reminder sent (docs/api.md part 18); null unless `document` is reminder.")),
    channel: f.column(() => z.literal("email")),
    recipient: f.column(z.string),
    format: f.column(() => z.enum(INVOICE_FORMATS)),
    state: f.column(() => z.enum(DELIVERY_STATES)),
    attempts: f.column(() => z.int()),
    message_id: f.column(nullable("Email Service's messageId once sent.")),
    error: f.column(nullable("Why it failed: the binding's error code and message.")),
    created_at: f.column(dateTime),
    sent_at: f.column(() => z.nullable(dateTime())),
    updated_at: f.column(dateTime),
  }),
  "One e-mail of a document (an invoice, its credit note, a reminder) to the buyer, and what became of it.",
);

export const InvoiceDelivery = delivery.schema;
export const toInvoiceDelivery = delivery.show;

/** POST /invoices/{id}/deliveries: send the invoice (or its credit note) again, to the profile's or another address. */
export const CreateInvoiceDelivery = named(
  "CreateInvoiceDelivery",
  requestBody({
    recipient: z.optional(
      printableText(254, z.refine(isEmailAddress, "must be an e-mail address: one @, no whitespace")).register(
        z.globalRegistry,
        { description: "Another address than the billing profile's `email`." },
      ),
    ),
    format: z.optional(oneOf(INVOICE_FORMATS)),
    document: z.optional(oneOf(["invoice", "credit_note"] as const)),
  }),
);
