import { ApiError } from "../errors";
import { defineLifecycle } from "./lifecycle";

// docs/api.md parts 5 and 6: every allowed set of a card order, here and nowhere else.
export const VOUCHER_CATEGORIES = ["mixed", "meal", "gift"] as const;
export const PAYMENT_METHODS = ["bank_transfer", "direct_debit"] as const;

export type VoucherCategory = (typeof VOUCHER_CATEGORIES)[number];
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

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
  states: Object.keys(CARD_ORDER_STATE_LABELS) as [CardOrderState, ...CardOrderState[]],
  initial: "draft",
  transitions: {
    submit: { from: ["draft"], to: "submitted", scope: "card_orders:write", stamp: "submittedAt" },
    cancel: { from: ["draft", "submitted"], to: "cancelled", scope: "card_orders:write" },
    start_production: { from: ["submitted"], to: "in_production", scope: "fulfilment", stamp: "productionStartedAt" },
    deliver: { from: ["in_production"], to: "delivered", scope: "fulfilment", stamp: "deliveredAt" },
  },
});

export type CardOrderAction = keyof typeof cardOrderLifecycle.transitions;

/** docs/api.md part 10: an order holds at most this many entries, also under concurrent requests. */
export const MAX_ENTRIES_PER_ORDER = 500;

/** Why an entry is not added to a draft: it holds MAX_ENTRIES_PER_ORDER already. */
export const orderFull = (): ApiError =>
  ApiError.of("conflict", `The card order has ${MAX_ENTRIES_PER_ORDER} entries, the most it can hold.`);

/** Entries are added and deleted only while the order is a draft, and only up to the limit. */
export function assertEntriesChangeable(order: { state: CardOrderState; entriesCount: number }, adding: boolean): void {
  if (order.state !== "draft")
    throw ApiError.of(
      "invalid_state",
      `The card order is ${order.state}; entries are added and deleted only while it is draft.`,
    );
  if (adding && order.entriesCount >= MAX_ENTRIES_PER_ORDER) throw orderFull();
}

/**
 * A card order is submitted only for a customer who can be invoiced (docs/api.md part 13): one with a
 * billing profile, which for direct debit holds the account and the mandate.
 */
export function assertBillable(
  order: { paymentMethod: PaymentMethod },
  profile: { directDebitIban: string | null; directDebitMandateReference: string | null } | undefined,
): void {
  if (!profile)
    throw ApiError.of(
      "conflict",
      "The customer has no billing profile, which every invoice needs; PUT /customers/me/billing_profile first.",
    );
  if (order.paymentMethod === "direct_debit" && (!profile.directDebitIban || !profile.directDebitMandateReference))
    throw ApiError.of(
      "conflict",
      "The card order is paid by direct debit, but the billing profile has no direct_debit_iban and " +
        "direct_debit_mandate_reference; PUT /customers/me/billing_profile with both first.",
    );
}
