import type { InvoiceRow } from "../db/schema";
import { ApiError } from "../errors";
import { defineLifecycle } from "./lifecycle";

export const invoiceLifecycle = defineLifecycle({
  noun: "invoice",
  states: ["open", "paid", "cancelled"],
  initial: "open",
  transitions: {
    pay: { from: ["open"], to: "paid", scope: "fulfilment", stamp: "paidAt" },
    cancel: { from: ["open"], to: "cancelled", scope: "fulfilment", stamp: "cancelledAt" },
  },
});

export type InvoiceAction = keyof typeof invoiceLifecycle.transitions;

export const PAYMENT_TERM_DAYS = 14;

/** Numbers are `<series>-<UTC year>-<six digits>`, gapless per series and year (CONTRACT part 6). */
export const NUMBER_SERIES = { invoice: "INV", cancellation: "CN" } as const;

export const isoDate = (at: Date): string => at.toISOString().slice(0, 10);

export const addDays = (at: Date, days: number): Date => new Date(at.getTime() + days * 86_400_000);

/** An invoice as the API shows it: the seed's fields in the seed's order (2.1). */
export function toInvoice(row: InvoiceRow) {
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

export type Invoice = ReturnType<typeof toInvoice>;

/** Any card order that is not cancelled can be invoiced, once (CONTRACT part 6). */
export function assertInvoiceable(order: { state: string; invoiceNumber: string | null }): void {
  if (order.state === "cancelled") throw ApiError.of("invalid_state", "The card order is cancelled; a cancelled order cannot be invoiced.");
  if (order.invoiceNumber !== null) throw ApiError.of("conflict", `The card order already has an invoice (${order.invoiceNumber}).`);
}
