import type { CardOrderRow } from "../db/schema";
import { allows, defineLifecycle } from "./lifecycle";

// CONTRACT parts 5 and 6: every allowed set of a card order, here and nowhere else.
export const VOUCHER_CATEGORIES = ["mixed", "meal", "gift"] as const;
export const PAYMENT_METHODS = ["bank_transfer", "direct_debit"] as const;

export const CARD_ORDER_STATE_LABELS = {
  draft: "Draft",
  submitted: "Submitted",
  in_production: "In production",
  delivered: "Delivered",
  cancelled: "Cancelled",
} as const;

export type CardOrderState = keyof typeof CARD_ORDER_STATE_LABELS;

export const cardOrderLifecycle = defineLifecycle({
  noun: "card order",
  states: Object.keys(CARD_ORDER_STATE_LABELS) as CardOrderState[],
  initial: "draft",
  transitions: {
    submit: { from: ["draft"], to: "submitted", scope: "card_orders:write", stamp: "submittedAt" },
    cancel: { from: ["draft", "submitted"], to: "cancelled", scope: "card_orders:write" },
    start_production: { from: ["submitted"], to: "in_production", scope: "fulfilment", stamp: "productionStartedAt" },
    deliver: { from: ["in_production"], to: "delivered", scope: "fulfilment", stamp: "deliveredAt" },
  },
});

export type CardOrderAction = keyof typeof cardOrderLifecycle.transitions;

/** A card order as the API shows it: the seed's fields in the seed's order (2.2). */
export function toCardOrder(row: CardOrderRow) {
  return {
    id: row.id,
    state: row.state,
    state_label: CARD_ORDER_STATE_LABELS[row.state as CardOrderState],
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    submitted_at: row.submittedAt,
    production_started_at: row.productionStartedAt,
    delivered_at: row.deliveredAt,
    is_cancellable: allows(cardOrderLifecycle, row.state, "cancel"),
    customer: row.customerId,
    description: row.description,
    invoice_reference: row.invoiceReference,
    cost_center: row.costCenter,
    payment_method: row.paymentMethod,
    invoice: row.invoiceId === null ? null : { id: row.invoiceId, type: "invoice", number: row.invoiceNumber ?? "" },
    // No endpoint creates production or shipping invoices, nor order entries (README, decisions).
    production_invoice: null,
    shipping_invoice: null,
    voucher_category: row.voucherCategory,
    entries_count: 0,
  };
}

export type CardOrder = ReturnType<typeof toCardOrder>;
