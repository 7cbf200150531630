// What the UBL and the CII document (and the PDF's pages) all say, decided once (EN 16931's semantic
// model; ubl.ts, cii.ts and pdf/ only place it): the identifiers, the VAT category, the parties'
// addresses, the payment instructions, and the texts in the document's language.
import type { Buyer, DocumentLanguage, EInvoice, PostalAddress, VatCategory } from "../domain/einvoice";
import { paymentReferenceOf } from "../domain/payment-reference";
import { xmlCarried } from "./xml";

/** BT-24 of the XML documents: XRechnung 3.0 (BR-DE-21). */
export const XRECHNUNG_ID = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0";
/** BT-24 of the CII a Factur-X PDF embeds: EN 16931 itself, as its XMP ConformanceLevel `EN 16931` says. */
export const EN16931_ID = "urn:cen.eu:en16931:2017";
export type SpecificationId = typeof XRECHNUNG_ID | typeof EN16931_ID;
/** BT-23: billing (Peppol BIS 3's identifier, which XRechnung receivers know). */
export const BUSINESS_PROCESS_ID = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0";
export const CURRENCY = "EUR";
/** UN/ECE Rec 20 "one": cards, a production run per card, a shipment. */
export const UNIT_CODE = "C62";

/**
 * An optional text worth a document element: null, empty and blank ones (once XML has dropped what it
 * cannot carry) are left out.
 */
export function present(text: string | null | undefined): text is string {
  return text != null && xmlCarried(text).trim() !== "";
}

type Exempt = Exclude<VatCategory, "S" | "Z">;

/** BT-120, the exemption reason of each exempt category (O: of a voucher, or of a service abroad). */
const EXEMPTION_TEXTS: Record<DocumentLanguage, Record<Exempt | "O-service", string>> = {
  de: {
    O: "Nicht steuerbar: Mehrzweckgutschein (§ 3 Abs. 15 UStG)",
    "O-service": "Nicht im Inland steuerbare Leistung (§ 3a Abs. 2 UStG)",
    K: "Steuerfreie innergemeinschaftliche Lieferung (§ 4 Nr. 1 Buchst. b, § 6a UStG)",
    AE: "Steuerschuldnerschaft des Leistungsempfängers",
    G: "Steuerfreie Ausfuhrlieferung (§ 4 Nr. 1 Buchst. a, § 6 UStG)",
  },
  en: {
    O: "Not subject to VAT: multi-purpose voucher (§ 3 (15) UStG)",
    "O-service": "Service not taxable in Germany (§ 3a (2) UStG)",
    K: "Tax-exempt intra-community supply (§ 4 No. 1 (b), § 6a UStG)",
    AE: "Reverse charge",
    G: "Tax-exempt export supply (§ 4 No. 1 (a), § 6 UStG)",
  },
};

/** BT-121, the exemption reason code (CEF's VATEX list). */
const EXEMPTION_CODES: Record<Exempt, string> = {
  O: "VATEX-EU-O",
  K: "VATEX-EU-IC",
  AE: "VATEX-EU-AE",
  G: "VATEX-EU-G",
};

export interface Vat {
  category: VatCategory;
  /** BT-152 of a line: none for O (BR-O-05). */
  linePercent: string | null;
  /** BT-119: XRechnung wants one in every breakdown (BR-DE-14), so O shows "0". */
  breakdownPercent: string;
  /** BT-121 and BT-120: every exempt category (O, K, AE, G); S and Z carry none (BR-S-10, BR-Z-10). */
  exemption: { code: string; text: string } | null;
  /** O forbids either party's VAT identifier (BR-O-02); every other category shows them (BR-S-02, BR-IC-02, ...). */
  showsVatIds: boolean;
}

/** The document's one VAT category and rate (every line shares them: docs/api.md part 13), so one breakdown. */
export function vatOf(doc: EInvoice): Vat {
  const [first, ...rest] = doc.lines;
  if (!first) throw new Error(`${doc.number}: an e-invoice needs at least one line`);
  if (rest.some((l) => l.vatCategory !== first.vatCategory || l.vatPercent !== first.vatPercent))
    throw new Error(`${doc.number}: the lines of one invoice must share one VAT category and rate`);
  const category = first.vatCategory;
  const notSubject = category === "O";
  const exempt = category === "S" || category === "Z" ? null : category;
  const reason = exempt === "O" && doc.kind !== "voucher" ? "O-service" : exempt;
  return {
    category,
    linePercent: notSubject ? null : first.vatPercent,
    breakdownPercent: notSubject ? "0" : first.vatPercent,
    exemption: exempt && reason ? { code: EXEMPTION_CODES[exempt], text: EXEMPTION_TEXTS[doc.language][reason] } : null,
    showsVatIds: !notSubject,
  };
}

/**
 * BG-13/BG-15, where the goods go: the buyer's own address, on an intra-community supply (K) or an
 * export (G), whose exemption rests on it (BR-IC-12; XRechnung's BR-DE-10/11 want city and postcode).
 */
export const deliverToOf = (doc: EInvoice, vat: Vat): (PostalAddress & { name: string }) | null =>
  vat.category === "K" || vat.category === "G" ? { ...addressOf(doc.buyer), name: doc.buyer.legalName } : null;

const addressOf = ({ street, postcode, city, countryCode }: PostalAddress): PostalAddress => ({
  street,
  postcode,
  city,
  countryCode,
});

/**
 * BT-10: a public-sector buyer's Leitweg-ID; else the profile's buyer_reference, the invoice's
 * reference, the customer id, the first of them that XML can carry as non-blank text (BR-DE-15).
 */
export const buyerReferenceOf = (doc: EInvoice): string =>
  [doc.buyer.leitwegId, doc.buyer.buyerReference, doc.orderReference].find(present) ?? doc.buyer.customerId;

/** BT-49: the Leitweg-ID (scheme 0204) when the buyer has one, else its e-mail address (EM); null on old invoices. */
export function buyerAddressOf(buyer: Buyer): { scheme: "0204" | "EM"; id: string } | null {
  if (present(buyer.leitwegId)) return { scheme: "0204", id: buyer.leitwegId };
  return present(buyer.email) ? { scheme: "EM", id: buyer.email } : null;
}

/** "Geschäftsführung: …": the seller's managing directors (§ 35a GmbHG), when the invoice kept them. */
export function managingDirectorsOf(doc: EInvoice): string | null {
  const { managingDirectors } = doc.seller;
  return present(managingDirectors) ? `${TEXTS[doc.language].managingDirectors}: ${managingDirectors}` : null;
}

/** BT-33, the seller's additional legal information: its managing directors and register entry. */
export function sellerLegalInfoOf(doc: EInvoice): string | null {
  const directors = managingDirectorsOf(doc);
  return directors && `${directors} · ${doc.seller.registrationId}`;
}

const TEXTS = {
  de: {
    managingDirectors: "Geschäftsführung",
    offset: (invoice: string) =>
      `Storniert die Rechnung ${invoice} vollständig und wird mit ihr verrechnet; es ist keine Zahlung fällig.`,
  },
  en: {
    managingDirectors: "Managing directors",
    offset: (invoice: string) => `Cancels ${invoice} in full and is offset against it: no payment is due.`,
  },
} as const;

/** BG-16, payment instructions (XRechnung requires them: BR-DE-1). */
export type Payment =
  /** SEPA credit transfer to the seller (BG-17); the invoice's RF reference as remittance information. */
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
// A credit transfer's BT-83 is the invoice's ISO 11649 RF reference (docs/api.md part 15), which the
// payer quotes and the bank statement's matching reads first; a direct debit's stays the invoice number
// until part 16 decides it.
export function paymentOf(doc: EInvoice): Payment {
  if (doc.typeCode === "381") {
    const invoice = doc.precedingInvoice?.number;
    if (!invoice) throw new Error(`${doc.number}: a credit note needs its invoice (BG-3)`);
    return { code: "97", remittance: invoice, terms: TEXTS[doc.language].offset(invoice) };
  }
  if (doc.paymentMethod === "bank_transfer")
    return {
      code: "58",
      remittance: paymentReferenceOf(doc.number),
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
