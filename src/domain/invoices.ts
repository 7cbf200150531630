import { ApiError } from "../errors";
import type { CardOrderState } from "./card-orders";
import { defineLifecycle } from "./lifecycle";
import { formatCents } from "./money";

/**
 * An invoice's dunning as stored (docs/api.md part 18): none (not yet overdue), active, held or ended; the
 * wire adds settled (a paid or cancelled invoice's, whatever is stored), and `GET /invoices?dunning=`
 * lists the three a chased invoice can be in.
 */
const STORED_DUNNING_STATES = ["none", "active", "held", "ended"] as const;
export type StoredDunningState = (typeof STORED_DUNNING_STATES)[number];
export const DUNNING_STATES = [...STORED_DUNNING_STATES, "settled"] as const;
export const LISTED_DUNNING_STATES = ["active", "held", "ended"] as const satisfies readonly StoredDunningState[];

export const invoiceLifecycle = defineLifecycle({
  noun: "invoice",
  states: ["open", "paid", "cancelled"],
  initial: "open",
  transitions: {
    pay: { from: ["open"], to: "paid", scope: "fulfilment", stamp: "paidAt" },
    cancel: { from: ["open"], to: "cancelled", scope: "fulfilment", stamp: "cancelledAt" },
  },
  moves: {
    // docs/api.md part 15: allocations that reach the gross amount settle the invoice.
    settle: { from: ["open"], to: "paid", stamp: "paidAt" },
    // docs/api.md part 16: a returned direct debit reopens the invoice it paid.
    reopen: { from: ["paid"], to: "open", clears: "paidAt" },
  },
});

export type InvoiceState = (typeof invoiceLifecycle.states)[number];

/** The three invoices of a card order (docs/api.md part 10): its cards' value, their production, their shipping. */
const INVOICE_KINDS = ["voucher", "production", "shipping"] as const;
export type InvoiceKind = (typeof INVOICE_KINDS)[number];
export type InvoiceAction = keyof typeof invoiceLifecycle.transitions;

export const PAYMENT_TERM_DAYS = 14;

/** Numbers are `<series>-<UTC year>-<six digits>`, gapless per series and year (docs/api.md part 6). */
export const NUMBER_SERIES = { invoice: "INV", cancellation: "CN" } as const;

/**
 * A card order can be given a voucher invoice once it is submitted, and again only when the one it
 * has was cancelled (docs/api.md part 6).
 */
export function assertInvoiceable(
  order: { state: CardOrderState },
  voucherInvoice: { state: InvoiceState; number: string } | undefined,
): void {
  if (!INVOICEABLE.includes(order.state)) {
    throw ApiError.of(
      "invalid_state",
      `The card order is ${order.state}; it can be invoiced only when it is ${INVOICEABLE.join(", ")}.`,
    );
  }
  if (voucherInvoice && voucherInvoice.state !== "cancelled") {
    throw ApiError.of(
      "conflict",
      `The card order already has an invoice (${voucherInvoice.number}, ${voucherInvoice.state}); ` +
        "cancel it first to invoice the order again.",
    );
  }
}

/**
 * An invoice a direct debit collection holds (docs/api.md part 16) is neither paid by hand nor cancelled
 * until its debit is settled or returned: the bank is collecting the money.
 */
export function assertNotCollected(invoice: { number: string; pendingCollection: string | null }): void {
  if (invoice.pendingCollection !== null)
    throw ApiError.of(
      "conflict",
      `Invoice ${invoice.number} is being collected by direct debit (collection ${invoice.pendingCollection}); ` +
        "wait until its debit is settled or returned.",
    );
}

const INVOICEABLE: readonly CardOrderState[] = ["submitted", "in_production", "delivered"];

/**
 * An open invoice with money allocated to it is not cancelled (docs/api.md part 15): what was paid
 * would be owed back, which a credit note cannot say. Its payments must be settled otherwise first.
 */
export function assertCancellable(invoice: {
  number: string;
  allocatedAmount: number;
  pendingCollection: string | null;
}): void {
  assertNotCollected(invoice);
  if (invoice.allocatedAmount > 0)
    throw ApiError.of(
      "conflict",
      `Invoice ${invoice.number} has payments of ${formatCents(invoice.allocatedAmount)} allocated to it; ` +
        "an invoice that is partly paid cannot be cancelled.",
    );
}
