// The documents the e-invoice tests render: every kind the service issues (voucher invoices in
// category O and S, production and shipping fees in S and Z, both payment methods, with and without
// the buyer's VAT id and buyer reference, with and without the seller's tax number and BIC), and the
// credit note of each. test/einvoice/documents.test.mjs renders them as XML, pdf.test.mjs as PDF.
import { importSource } from "../../scripts/import-source.mjs";
import { BUYER, SELLER } from "./parties.mjs";

const { parsePercent, vatCents } = await importSource('export { parsePercent, vatCents } from "./src/domain/money";');

// --- Fixtures: realistic parties (umlauts, ß, an "&" and quotes to prove the escaping).

const LEITWEG_ID = "04011000-12345-67";
const CARD_HOLDERS = [
  ["Jürgen Groß", 5000],
  ["Zoë Weiß-Schäfer", 2550],
  ["Anna & Ben Krüger", 10000],
];

/** An invoice as the service issues it (docs/api.md part 13), amounts computed as the domain does. */
function invoice(number, { kind, percent, method, buyer = {}, reference = null, costCenter = null }) {
  const category = percent !== "0" ? "S" : kind === "voucher" ? "O" : "Z";
  const items = {
    voucher: CARD_HOLDERS.map(([name, cents]) => [`Voucher card ${name}`, 1, cents]),
    production: [["Card production", 7, 250]],
    shipping: [["Shipping", 1, 990]],
  }[kind];
  const lines = items.map(([description, quantity, unitPriceCents], i) => ({
    position: i + 1,
    description,
    quantity,
    unitPriceCents,
    netCents: quantity * unitPriceCents,
    vatCategory: category,
    vatPercent: percent,
  }));
  const netCents = lines.reduce((sum, line) => sum + line.netCents, 0);
  const vat = vatCents(netCents, parsePercent(percent));
  const party = { ...BUYER, ...buyer };
  return {
    typeCode: "380",
    number,
    issueDate: "2026-03-02",
    dueDate: "2026-03-16",
    precedingInvoice: null,
    buyerReference: party.buyerReference ?? reference ?? party.customerId,
    orderReference: reference,
    accountingReference: costCenter,
    salesOrderReference: "0193a1f2-7c4e-7b1a-9d2e-5f6a7b8c9d0e", // a card order id, as the service issues them
    servicePeriod: kind === "voucher" ? null : { start: "2026-03-02", end: "2026-03-02" },
    paymentMethod: method,
    seller: SELLER,
    buyer: party,
    lines,
    netCents,
    vatCents: vat,
    grossCents: netCents + vat,
  };
}

/** The credit note of a cancelled invoice: 381, its CN- number and day, referring to the invoice. */
function creditNote(doc, number) {
  const preceding = { number: doc.number, issueDate: doc.issueDate };
  return { ...doc, typeCode: "381", number, issueDate: "2026-03-05", dueDate: null, precedingInvoice: preceding };
}

const noVatId = { vatId: null };
const leitweg = { buyerReference: LEITWEG_ID };
const INVOICES = {
  "voucher-O-transfer": invoice("INV-2026-000101", {
    kind: "voucher",
    percent: "0",
    method: "bank_transfer",
    reference: 'PO <2026> "Q1" & more',
    costCenter: "KST 4711",
  }),
  "voucher-O-debit": invoice("INV-2026-000102", {
    kind: "voucher",
    percent: "0",
    method: "direct_debit",
    buyer: { ...noVatId, ...leitweg, email: null },
  }),
  "voucher-S19-transfer": invoice("INV-2026-000103", {
    kind: "voucher",
    percent: "19",
    method: "bank_transfer",
    buyer: leitweg,
  }),
  "voucher-S7-debit": invoice("INV-2026-000104", {
    kind: "voucher",
    percent: "7",
    method: "direct_debit",
    buyer: noVatId,
    reference: "Bestellung 2026/17",
  }),
  "production-S-transfer": invoice("INV-2026-000105", {
    kind: "production",
    percent: "19",
    method: "bank_transfer",
    buyer: noVatId,
    costCenter: "Kostenstelle Süd",
  }),
  "production-S-debit": invoice("INV-2026-000106", {
    kind: "production",
    percent: "19",
    method: "direct_debit",
    buyer: leitweg,
    reference: "PO-55",
  }),
  "shipping-S-transfer": invoice("INV-2026-000107", {
    kind: "shipping",
    percent: "19",
    method: "bank_transfer",
  }),
  "shipping-S-debit": invoice("INV-2026-000108", {
    kind: "shipping",
    percent: "19",
    method: "direct_debit",
    buyer: { ...noVatId, ...leitweg },
  }),
  "production-Z-transfer": invoice("INV-2026-000109", {
    kind: "production",
    percent: "0",
    method: "bank_transfer",
    buyer: leitweg,
  }),
  "shipping-Z-debit": invoice("INV-2026-000110", {
    kind: "shipping",
    percent: "0",
    method: "direct_debit",
    buyer: noVatId,
  }),
};
// A seller without tax number and BIC (both optional) on some documents.
INVOICES["shipping-S-transfer"].seller = { ...SELLER, taxNumber: null, bic: null };
INVOICES["production-Z-transfer"].seller = { ...SELLER, taxNumber: null };

/** [name, EInvoice] of every fixture: `<kind>-<category>-<payment>.380`, and `.381` its credit note. */
export const DOCUMENTS = Object.entries(INVOICES).flatMap(([name, doc], i) => [
  [`${name}.380`, doc],
  [`${name}.381`, creditNote(doc, `CN-2026-${String(i + 1).padStart(6, "0")}`)],
]);

/** A voucher invoice (category O, bank transfer, the parties above) of `cards`: [card holder name, cents]. */
export function voucherInvoiceOf(number, cards) {
  const base = DOCUMENTS.find(([name]) => name === "voucher-O-transfer.380")[1];
  const lines = cards.map(([name, cents], i) => ({
    position: i + 1,
    description: `Voucher card ${name}`,
    quantity: 1,
    unitPriceCents: cents,
    netCents: cents,
    vatCategory: "O",
    vatPercent: "0",
  }));
  const netCents = lines.reduce((sum, line) => sum + line.netCents, 0);
  return { ...base, number, lines, netCents, vatCents: 0, grossCents: netCents };
}
