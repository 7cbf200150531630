import * as z from "zod/mini";
import type { InvoiceLineRow } from "../db/schema";
import { VAT_CATEGORIES } from "../domain/einvoice";
import { formatCents } from "../domain/money";
import { money } from "./formats";
import { namedResponse } from "./registry";

/** A line of an invoice on the wire: docs/api.md part 13's fields in its order. */
export const InvoiceLine = namedResponse(
  "InvoiceLine",
  () =>
    z.strictObject({
      type: z.literal("invoice_line"),
      position: z.int().register(z.globalRegistry, { minimum: 1 }),
      description: z.string(),
      quantity: z.int(),
      unit_price: money(),
      net_amount: money().register(z.globalRegistry, { description: "quantity × unit_price, EUR." }),
      vat_category: z.enum(VAT_CATEGORIES).register(z.globalRegistry, {
        description:
          "EN 16931's VAT category: S standard rate; O not subject to VAT (a voucher's value, a service abroad); " +
          "K intra-community supply; AE reverse charge; G export; Z zero rate (older invoices only).",
      }),
      vat_percent: z.string().register(z.globalRegistry, { examples: ["19", "0"] }),
      card_order_entry_id: z.nullable(z.string()),
    }),
  "What an invoice bills, one line a voucher card or a fee; never changed.",
);

export const toInvoiceLine = (row: InvoiceLineRow): z.input<typeof InvoiceLine> => ({
  type: "invoice_line",
  position: row.position,
  description: row.description,
  quantity: row.quantity,
  unit_price: formatCents(row.unitPrice),
  net_amount: formatCents(row.netAmount),
  vat_category: row.vatCategory,
  vat_percent: row.vatPercent,
  card_order_entry_id: row.cardOrderEntryId,
});
