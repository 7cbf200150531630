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

/** What a billing profile must hold for an order's invoices (docs/api.md parts 13 and 14). */
interface BillableProfile {
  email: string | null;
  directDebitIban: string | null;
  directDebitMandateReference: string | null;
  directDebitMandateSignedOn: string | null;
}

/**
 * An order is submitted, and its invoices are issued, only for a customer whose billing profile makes a
 * valid e-invoice (docs/api.md parts 13 and 14): one with the buyer's e-mail address (its electronic
 * address, BT-49), which for direct debit also holds the account, the mandate and its date. The detail
 * says what the profile lacks.
 */
export function assertBillable(order: { paymentMethod: PaymentMethod }, profile: BillableProfile | undefined): void {
  const put = "PUT /customers/me/billing_profile";
  if (!profile)
    throw ApiError.of("conflict", `The customer has no billing profile, which every invoice needs; ${put} first.`);
  if (!profile.email)
    throw ApiError.of(
      "conflict",
      `The billing profile has no email, the buyer's electronic address every e-invoice needs; ${put} with one first.`,
    );
  const mandate = {
    direct_debit_iban: profile.directDebitIban,
    direct_debit_mandate_reference: profile.directDebitMandateReference,
    direct_debit_mandate_signed_on: profile.directDebitMandateSignedOn,
  };
  const lacking = Object.keys(mandate).filter((field) => !mandate[field as keyof typeof mandate]);
  if (order.paymentMethod === "direct_debit" && lacking.length > 0)
    throw ApiError.of(
      "conflict",
      `The card order is paid by direct debit, but the billing profile has no ${lacking.join(", ")}; ${put} with ` +
        "the account and the mandate first.",
    );
}
