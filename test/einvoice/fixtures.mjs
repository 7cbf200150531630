// The documents the e-invoice tests render, made by the service's own code from what it would store:
// the seller from its variables (sellerOf), the buyer from a billing profile (buyerOf), the amounts,
// VAT category and line texts from invoiceTerms, and the document from the stored rows (eInvoiceOf), so
// that a rule of the service is checked as the service applies it. Every combination docs/api.md part 14
// names: the three kinds (and a voucher at a VAT rate), fees as goods and as services, both payments,
// German, Leitweg-ID, French, Austrian, Swiss and Greek buyers (in German or English), and the credit
// note of each; and two sellers for part 15's EPC QR code (a name over 70 characters, no BIC).
// documents.test.mjs renders them as XML, pdf.test.mjs (a subset) as PDF.
import { importSource } from "../../scripts/import-source.mjs";
import { rfReference } from "../support/check-digits.mjs";
import { PROFILES, SELLER_VARS } from "./parties.mjs";

const { invoiceTerms, LINE_TEXTS, sellerOf, buyerOf, eInvoiceOf } = await importSource(
  [
    'export { invoiceTerms, LINE_TEXTS } from "./src/domain/billing";',
    'export { sellerOf } from "./src/domain/seller";',
    'export { buyerOf } from "./src/db/billing-profiles";',
    'export { eInvoiceOf } from "./src/db/e-invoices";',
  ].join("\n"),
);

const CARD_HOLDERS = [
  ["Jürgen Groß", 5000],
  ["Zoë Weiß-Schäfer", 2550],
  ["Anna & Ben Krüger", 10000],
];
/** A card order as the service stores it (its id a UUID, as the service's are). */
const ORDER = { id: "0193a1f2-7c4e-4b1a-9d2e-5f6a7b8c9d0e", entriesCount: 7, entriesAmount: 17550 };

/**
 * An invoice of `kind` to `profile`, issued on 2026-03-02 (and cancelled on 2026-03-05 for its credit
 * note), as the stored rows would hold it. `vars` are the billing variables beyond the seller's;
 * `sellerVars` change the seller's (SELLER_VARS).
 */
export function issued(
  number,
  { kind, profile, method, vars = {}, sellerVars = {}, reference = null, costCenter = null, cards },
) {
  const buyer = buyerOf(profile);
  const order = cards
    ? { ...ORDER, entriesCount: cards.length, entriesAmount: cards.reduce((sum, [, cents]) => sum + cents, 0) }
    : ORDER;
  const terms = invoiceTerms(kind, order, buyer, vars);
  const items = terms.feeLine
    ? [[terms.feeLine.description, terms.feeLine.quantity, terms.feeLine.unitPrice]]
    : (cards ?? CARD_HOLDERS).map(([name, cents]) => [
        `${LINE_TEXTS[buyer.documentLanguage].voucher} ${name}`,
        1,
        cents,
      ]);
  const lines = items.map(([description, quantity, unitPrice], i) => ({
    invoiceId: "inv",
    position: i + 1,
    description,
    quantity,
    unitPrice,
    netAmount: quantity * unitPrice,
    vatCategory: terms.vatCategory,
    vatPercent: terms.vatPercent,
    cardOrderEntryId: null,
  }));
  const row = {
    id: "inv",
    customerId: profile.customerId,
    number,
    state: "cancelled",
    createdAt: "2026-03-02T09:00:00.000Z",
    updatedAt: "2026-03-05T10:00:00.000Z",
    bookedOn: "2026-03-02",
    creditor: SELLER_VARS.CREDITOR_NAME,
    dueOn: "2026-03-16",
    paidAt: null,
    cancellationNumber: number.replace("INV", "CN"),
    cancelledAt: "2026-03-04T23:30:00.000Z",
    cancelledOn: "2026-03-05",
    orderId: ORDER.id,
    orderState: "delivered",
    reference,
    costCenter,
    paymentMethod: method,
    kind,
    netAmount: terms.net,
    grossAmount: terms.gross,
    recipient: profile.customerId,
    servicePeriodStart: kind === "voucher" ? null : "2026-03-02",
    servicePeriodEnd: kind === "voucher" ? null : "2026-03-02",
    seller: JSON.stringify(sellerOf({ ...SELLER_VARS, ...sellerVars }, method)),
    buyer: JSON.stringify(buyer),
    linesCount: lines.length,
  };
  return { invoice: eInvoiceOf(row, lines, "invoice"), creditNote: eInvoiceOf(row, lines, "credit_note") };
}

const METHODS = ["bank_transfer", "direct_debit"];
const SUPPLIES = ["goods", "services"];

/**
 * [name, EInvoice, { profile, kind, variant }] of every combination: `<buyer>-<kind>-<variant>-<payment>.380`
 * and `.381`, where the variant is a voucher's VAT rate or the fees' FEE_SUPPLY_KIND.
 */
export const DOCUMENTS = [];
let serial = 100;
for (const [buyerName, profile] of Object.entries(PROFILES)) {
  const variants = [
    ...METHODS.map((method) => ({ kind: "voucher", variant: "0", method, vars: {} })),
    ...METHODS.map((method) => ({ kind: "voucher", variant: "7", method, vars: { VOUCHER_VAT_PERCENT: "7" } })),
    ...["production", "shipping"].flatMap((kind) =>
      SUPPLIES.flatMap((supply) =>
        METHODS.map((method) => ({ kind, variant: supply, method, vars: { FEE_SUPPLY_KIND: supply } })),
      ),
    ),
  ];
  for (const { kind, variant, method, vars } of variants) {
    const number = `INV-2026-${String(++serial).padStart(6, "0")}`;
    // Every other document with a reference and a cost center, escaping included.
    const texts = serial % 2 ? { reference: 'PO <2026> "Q1" & more', costCenter: "KST 4711" } : {};
    const { invoice, creditNote } = issued(number, { kind, profile, method, vars, ...texts });
    const name = `${buyerName}-${kind}-${variant}-${method === "bank_transfer" ? "transfer" : "debit"}`;
    const about = { profile, kind, variant };
    DOCUMENTS.push([`${name}.380`, invoice, about], [`${name}.381`, creditNote, about]);
  }
}

// Two sellers the EPC QR code of a bank-transfer invoice (docs/api.md part 15) must cope with: a name
// longer than the code's 70 characters (cut there in the code only), and no BIC (the code's line 5
// empty). Each with its credit note, like the rest.
for (const [variant, sellerVars] of [
  [
    "long-name",
    { CREDITOR_NAME: "Gutscheinwerk Süd Vertriebs- und Produktionsgesellschaft für Gutscheinkarten mbH & Co. KG" },
  ],
  ["no-bic", { CREDITOR_BIC: "" }],
]) {
  const number = `INV-2026-${String(++serial).padStart(6, "0")}`;
  const about = { profile: PROFILES.DE, kind: "voucher", variant: "0" };
  const { invoice, creditNote } = issued(number, { ...about, method: "bank_transfer", sellerVars });
  DOCUMENTS.push([`DE-voucher-0-transfer-${variant}.380`, invoice, about]);
  DOCUMENTS.push([`DE-voucher-0-transfer-${variant}.381`, creditNote, about]);
}

/** An invoice's ISO 11649 payment reference (docs/api.md part 15), computed by the tests' own arithmetic. */
export const paymentReference = (invoiceNumber) => rfReference(invoiceNumber);

/**
 * The PDFs' share of them, each with its credit note: every VAT category (O of a voucher and of a
 * service abroad, S, K, AE, G), both languages, both payments, e-mail and Leitweg-ID buyers, Greek
 * script, the two sellers of the QR code; check-pdf takes seconds a file, so not all 148.
 */
export const PDF_DOCUMENTS = DOCUMENTS.filter(([name]) =>
  [
    "DE-voucher-0-transfer",
    "DE-public-production-goods-debit",
    "FR-shipping-services-transfer",
    "AT-production-goods-debit",
    "CH-production-goods-debit",
    "CH-shipping-services-transfer",
    "GR-voucher-7-debit",
    "DE-voucher-0-transfer-long-name",
    "DE-voucher-0-transfer-no-bic",
  ].includes(name.slice(0, -4)),
);

/** A voucher invoice (category O, bank transfer, the German buyer) of `cards`: [card holder name, cents]. */
export const voucherInvoiceOf = (number, cards) =>
  issued(number, { kind: "voucher", profile: PROFILES.DE, method: "bank_transfer", cards }).invoice;
