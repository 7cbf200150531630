import * as z from "zod/mini";
import type { InvoiceRow } from "../db/schema";
import { cardOrderLifecycle, PAYMENT_METHODS } from "../domain/card-orders";
import { invoiceLifecycle } from "../domain/invoices";
import { date, dateTime } from "./formats";
import { named } from "./registry";

const money = () => z.nullable(z.string().register(z.globalRegistry, { pattern: "^-?[0-9]+\\.[0-9]{2}$", description: "EUR, two decimals" }));

/** An invoice on the wire: the seed's fields in the seed's order (2.1). */
export const Invoice = named(
  "Invoice",
  z.strictObject({
    id: z.string(),
    type: z.literal("invoice"),
    number: z.string().register(z.globalRegistry, { pattern: "^INV-[0-9]{4}-[0-9]{6,}$" }),
    state: z.enum(invoiceLifecycle.states),
    created_at: dateTime(),
    updated_at: dateTime(),
    booked_on: z.nullable(date()),
    service_period_start: z.nullable(date()),
    service_period_end: z.nullable(date()),
    creditor: z.string(),
    due_on: date(),
    paid_at: z.nullable(dateTime()),
    cancellation_number: z.string().register(z.globalRegistry, { description: '"" until the invoice is cancelled, then CN-YYYY-NNNNNN.' }),
    cancelled_at: z.nullable(dateTime()),
    gross_amount: money(),
    net_amount: money(),
    recipient: z.nullable(z.string()),
    orders: z.array(z.strictObject({ id: z.string(), type: z.literal("card_order"), state: z.enum(cardOrderLifecycle.states) })),
    reference: z.nullable(z.string()),
    cost_center: z.nullable(z.string()),
    payment_method: z.enum(PAYMENT_METHODS),
  }),
);

type InvoiceBody = z.input<typeof Invoice>;

export function toInvoice(row: InvoiceRow): InvoiceBody {
  return {
    id: row.id,
    type: "invoice",
    number: row.number,
    state: row.state,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    booked_on: row.bookedOn,
    // Nothing in the interface sets a service period, amounts or a recipient (README, decisions).
    service_period_start: null,
    service_period_end: null,
    creditor: row.creditor,
    due_on: row.dueOn,
    paid_at: row.paidAt,
    cancellation_number: row.cancellationNumber ?? "",
    cancelled_at: row.cancelledAt,
    gross_amount: null,
    net_amount: null,
    recipient: null,
    orders: [{ id: row.orderId, type: "card_order", state: row.orderState }],
    reference: row.reference,
    cost_center: row.costCenter,
    payment_method: row.paymentMethod,
  };
}
