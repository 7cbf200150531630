import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import * as z from "zod/mini";
import { VAT_CATEGORIES, type VatCategory } from "../domain/einvoice";
import { formatCents } from "../domain/money";
import { money } from "./formats";
import { invoices } from "./invoice";
import { resource } from "./resource";

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

export type InvoiceLineRow = typeof invoiceLines.$inferSelect;

const line = resource<InvoiceLineRow>()(
  "InvoiceLine",
  (f) => ({
    type: f.from(
      () => z.literal("invoice_line"),
      () => "invoice_line" as const,
    ),
    position: f.column(() => z.int().register(z.globalRegistry, { minimum: 1 })),
    description: f.column(() => z.string()),
    quantity: f.column(z.int),
    unit_price: f.from(money, (row) => formatCents(row.unitPrice)),
    net_amount: f.from(
      () => money().register(z.globalRegistry, { description: "quantity × unit_price, EUR." }),
      (row) => formatCents(row.netAmount),
    ),
    vat_category: f.column(() =>
      z.enum(VAT_CATEGORIES).register(z.globalRegistry, {
        description:
          "EN 16931's VAT category: S standard rate; O not subject to VAT (a voucher's value, a service abroad); " +
          "K intra-community supply; AE reverse charge; G export; Z zero rate (older invoices only).",
      }),
    ),
    vat_percent: f.column(() => z.string().register(z.globalRegistry, { examples: ["19", "0"] })),
    card_order_entry_id: f.column(() => z.nullable(z.string())),
  }),
  "What an invoice bills, one line a voucher card or a fee; never changed.",
);

/** A line of an invoice on the wire: docs/api.md part 13's fields in its order. */
export const InvoiceLine = line.schema;
export const toInvoiceLine = line.show;
