// What the UBL and the CII document both say, decided once (EN 16931's semantic model; ubl.ts and
// cii.ts only place it in their syntax): the identifiers, the VAT category, the payment instructions.
import type { EInvoice, VatCategory } from "./model";

/** BT-24: XRechnung 3.0 (BR-DE-21). */
export const SPECIFICATION_ID = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0";
/** BT-23: billing (Peppol BIS 3's identifier, which XRechnung receivers know). */
export const BUSINESS_PROCESS_ID = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0";
export const CURRENCY = "EUR";
/** UN/ECE Rec 20 "one": cards, a production run per card, a shipment. */
export const UNIT_CODE = "C62";

export interface Vat {
  category: VatCategory;
  /** BT-152 of a line: none for O (BR-O-05). */
  linePercent: string | null;
  /** BT-119: XRechnung wants one in every breakdown (BR-DE-14), so O shows "0". */
  breakdownPercent: string;
  /** BT-121: O only (BR-O-10); S and Z carry none (BR-S-10, BR-Z-10). */
  exemptionCode: string | null;
  /** O forbids either party's VAT identifier (BR-O-02); S and Z show them (BR-S-02, BR-Z-02). */
  showsVatIds: boolean;
}

/** The document's one VAT category and rate (every line shares them: docs/api.md part 13), so one breakdown. */
export function vatOf(doc: EInvoice): Vat {
  const [first, ...rest] = doc.lines;
  if (!first) throw new Error(`${doc.number}: an e-invoice needs at least one line`);
  if (rest.some((l) => l.vatCategory !== first.vatCategory || l.vatPercent !== first.vatPercent))
    throw new Error(`${doc.number}: the lines of one invoice must share one VAT category and rate`);
  const notSubject = first.vatCategory === "O";
  return {
    category: first.vatCategory,
    linePercent: notSubject ? null : first.vatPercent,
    breakdownPercent: notSubject ? "0" : first.vatPercent,
    exemptionCode: notSubject ? "VATEX-EU-O" : null,
    showsVatIds: !notSubject,
  };
}

/** BG-16, payment instructions (XRechnung requires them: BR-DE-1). */
export type Payment =
  /** SEPA credit transfer to the seller (BG-17); the invoice number as remittance information. */
  | { code: "58"; remittance: string; iban: string; accountName: string; bic: string | null }
  /** SEPA direct debit (BG-19): mandate (BT-89), creditor id (BT-90), the buyer's debited IBAN (BT-91). */
  | { code: "59"; remittance: string; mandate: string; creditorId: string; debitedIban: string }
  /** Clearing between partners: the credit note of a cancelled invoice, with payment terms in words (BT-20). */
  | { code: "97"; remittance: string; terms: string };

// A credit note (381) cancels an invoice that was never paid: only an `open` invoice can be cancelled
// (docs/api.md part 6; cancelling a paid one is refused). So no money moves either way: the credit note
// is offset against the open invoice, which UNTDID 4461 names "97, clearing between partners". Code 58
// to the seller's IBAN would read as "pay this", and 58 or 30 to the buyer as a refund that never
// happens (and a bank-transfer buyer has no IBAN on file). The remittance information (BT-83) names
// the cancelled invoice, the payment terms (BT-20) say it in words: what the buyer's bookkeeping
// needs to close both items. It also answers BR-CO-25: a credit note has no due date.
export function paymentOf(doc: EInvoice): Payment {
  if (doc.typeCode === "381") {
    const invoice = doc.precedingInvoice?.number;
    if (!invoice) throw new Error(`${doc.number}: a credit note needs its invoice (BG-3)`);
    return {
      code: "97",
      remittance: invoice,
      terms: `Cancels ${invoice} in full and is offset against it: no payment is due.`,
    };
  }
  if (doc.paymentMethod === "bank_transfer")
    return {
      code: "58",
      remittance: doc.number,
      iban: doc.seller.iban,
      accountName: doc.seller.name,
      bic: doc.seller.bic,
    };
  const { directDebitMandateReference: mandate, directDebitIban: debitedIban } = doc.buyer;
  const creditorId = doc.seller.sepaCreditorId;
  if (!mandate || !debitedIban || !creditorId)
    throw new Error(`${doc.number}: direct debit needs a mandate reference, a debited IBAN and a creditor id`);
  return { code: "59", remittance: doc.number, mandate, creditorId, debitedIban };
}

/** An optional text worth a document element: null, empty and blank ones are left out. */
export function present(text: string | null | undefined): text is string {
  return text != null && text.trim() !== "";
}
