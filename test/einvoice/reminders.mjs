// The reminder letters the tests render (docs/api.md part 18), made by the service's own code from what
// it would store: the invoice row as issued (the buyer kept as buyerOf makes it from a billing profile),
// the reminder's figures from reminderFigures, the seller's CREDITOR_* variables. The worked example of
// CONTRACT part 18 throughout: EUR 1,000.00 due 2025-06-13, level 1 on 2025-06-20 (default from the
// 21st), level 2 on 2025-07-10, level 3 on 2025-07-24 after EUR 500.00 paid on the 15th.
// reminder-pdf.test.mjs checks them; scripts/sample-reminder.mjs draws the level-2 one for the README.
import { importSource } from "../../scripts/import-source.mjs";
import { PROFILES, SELLER_VARS } from "./parties.mjs";

export const { renderReminderPdf, reminderFigures, buyerOf } = await importSource(
  [
    'export { renderReminderPdf } from "./src/documents/pdf/reminder";',
    'export { reminderFigures } from "./src/domain/dunning-reminder";',
    'export { buyerOf } from "./src/db/billing-profiles";',
  ].join("\n"),
);

export const ISSUED_ON = { 1: "2025-06-20", 2: "2025-07-10", 3: "2025-07-24" };
export const DEFAULT_SINCE = "2025-06-21";
export const PAYMENT = { on: "2025-07-15", cents: -50_000 };

/** An invoice row as the service stores it, issued to `profile` on 2025-05-30, due 2025-06-13. */
export function invoiceRow(number, profile) {
  const buyer = buyerOf(profile);
  return {
    id: "0193a1f2-0000-4b1a-9d2e-5f6a7b8c9d0e",
    customerId: profile.customerId,
    number,
    state: "open",
    createdAt: "2025-05-30T09:00:00.000Z",
    updatedAt: "2025-05-30T09:00:00.000Z",
    bookedOn: "2025-05-30",
    creditor: SELLER_VARS.CREDITOR_NAME,
    dueOn: "2025-06-13",
    paidAt: null,
    cancellationNumber: null,
    cancelledAt: null,
    cancelledOn: null,
    orderId: "0193a1f2-7c4e-4b1a-9d2e-5f6a7b8c9d0e",
    orderState: "delivered",
    reference: "PO-4711",
    costCenter: null,
    paymentMethod: "bank_transfer",
    kind: "voucher",
    netAmount: 100_000,
    grossAmount: 100_000,
    recipient: profile.customerId,
    servicePeriodStart: null,
    servicePeriodEnd: null,
    seller: null,
    buyer: JSON.stringify(buyer),
    linesCount: 1,
    allocatedAmount: 0,
    pendingCollection: null,
  };
}

/** The letter's input of a level in a language, for a business or a consumer. */
export function reminderInput(
  level,
  language,
  { consumer = false, number = "INV-2025-000123", sellerVars = {}, buyer = "DE" } = {},
) {
  const profile = { ...PROFILES[buyer], documentLanguage: language };
  const reminder = reminderFigures({
    level,
    issuedOn: ISSUED_ON[level],
    language,
    consumer,
    defaultSince: level === 1 ? null : DEFAULT_SINCE,
    timeline: { openCents: 100_000, changes: level === 3 ? [PAYMENT] : [] },
  });
  return { invoice: invoiceRow(number, profile), reminder, seller: { ...SELLER_VARS, ...sellerVars } };
}
