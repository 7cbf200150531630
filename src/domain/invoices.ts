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

export type InvoiceState = (typeof invoiceLifecycle.states)[number];
export type InvoiceAction = keyof typeof invoiceLifecycle.transitions;

export const PAYMENT_TERM_DAYS = 14;

/** Numbers are `<series>-<UTC year>-<six digits>`, gapless per series and year (CONTRACT part 6). */
export const NUMBER_SERIES = { invoice: "INV", cancellation: "CN" } as const;

/** Any card order that is not cancelled can be invoiced, once (CONTRACT part 6). */
export function assertInvoiceable(order: { state: string; invoiceNumber: string | null }): void {
  if (order.state === "cancelled") throw ApiError.of("invalid_state", "The card order is cancelled; a cancelled order cannot be invoiced.");
  if (order.invoiceNumber !== null) throw ApiError.of("conflict", `The card order already has an invoice (${order.invoiceNumber}).`);
}
