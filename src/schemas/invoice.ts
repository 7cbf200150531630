import * as z from "zod/mini";
import type { InvoiceRow } from "../db/schema";
import { cardOrderLifecycle, PAYMENT_METHODS } from "../domain/card-orders";
import { invoiceLifecycle } from "../domain/invoices";
import { formatCents } from "../domain/money";
import { date, dateTime, money, optionalText, requestBody } from "./formats";
import { named, namedResponse } from "./registry";

/** An invoice on the wire: the fields of docs/api.md part 1, in its order. */
export const Invoice = namedResponse("Invoice", () =>
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
    cancellation_number: z
      .string()
      .register(z.globalRegistry, { description: '"" until the invoice is cancelled, then CN-YYYY-NNNNNN.' }),
    cancelled_at: z.nullable(dateTime()),
    gross_amount: z.nullable(
      money().register(z.globalRegistry, { description: "EUR: net_amount plus VAT, rounded half up once." }),
    ),
    net_amount: z.nullable(money().register(z.globalRegistry, { description: "EUR." })),
    recipient: z.nullable(z.string().register(z.globalRegistry, { description: "The card order's customer." })),
    orders: z.array(
      z.strictObject({ id: z.string(), type: z.literal("card_order"), state: z.enum(cardOrderLifecycle.states) }),
    ),
    reference: z.nullable(z.string()),
    cost_center: z.nullable(z.string()),
    payment_method: z.enum(PAYMENT_METHODS),
  }),
);

/** A new invoice of a card order: its reference at most 255 characters. */
export const CreateInvoice = named(
  "CreateInvoice",
  requestBody({
    order_id: z.string({ error: "must be the id of one of the customer's card orders" }),
    reference: optionalText(255),
  }),
);

export function toInvoice(row: InvoiceRow): z.input<typeof Invoice> {
  return {
    id: row.id,
    type: "invoice",
    number: row.number,
    state: row.state,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    booked_on: row.bookedOn,
    service_period_start: row.servicePeriodStart,
    service_period_end: row.servicePeriodEnd,
    creditor: row.creditor,
    due_on: row.dueOn,
    paid_at: row.paidAt,
    cancellation_number: row.cancellationNumber ?? "",
    cancelled_at: row.cancelledAt,
    gross_amount: row.grossAmount === null ? null : formatCents(row.grossAmount),
    net_amount: row.netAmount === null ? null : formatCents(row.netAmount),
    recipient: row.recipient,
    orders: [{ id: row.orderId, type: "card_order", state: row.orderState }],
    reference: row.reference,
    cost_center: row.costCenter,
    payment_method: row.paymentMethod,
  };
}
