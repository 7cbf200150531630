// What an e-invoice shows (docs/api.md parts 13 and 14): everything the renderers (UBL, CII, the PDF)
// read, fixed when the invoice was issued (the seller's variables and the buyer's billing profile as
// they were then), plus the invoice's lines. The API Worker builds it from what it stored
// (db/e-invoices.ts) and hands it to the documents Worker, which renders it. Amounts are integer
// cents; rates are the configured percent strings.
import type { InvoiceKind } from "./invoices";

/**
 * EN 16931's VAT categories the service issues: S standard rate, O not subject to VAT (a multi-purpose
 * voucher; a service outside the EU), K intra-community supply, AE reverse charge, G export. Z (zero
 * rate) only on invoices issued before docs/api.md part 14.
 */
export const VAT_CATEGORIES = ["S", "O", "K", "AE", "G", "Z"] as const;
export type VatCategory = (typeof VAT_CATEGORIES)[number];

/** An invoice's documents: the invoice itself, and the credit note of a cancelled one. */
export type DocumentKind = "invoice" | "credit_note";
/** The formats of a document (docs/api.md part 13): XRechnung in UBL or CII, or a ZUGFeRD PDF. */
export type DocumentFormat = "ubl" | "cii" | "pdf";

/** The language of an invoice's PDF, line descriptions, payment terms and exemption texts. */
export const DOCUMENT_LANGUAGES = ["de", "en"] as const;
export type DocumentLanguage = (typeof DOCUMENT_LANGUAGES)[number];

export interface PostalAddress {
  street: string;
  postcode: string;
  city: string;
  /** ISO 3166-1 alpha-2, upper case. */
  countryCode: string;
}

/** The seller: wrangler.toml's CREDITOR_* variables when the invoice was issued. */
export interface Seller extends PostalAddress {
  name: string;
  vatId: string;
  taxNumber: string | null;
  /** Commercial register entry with its court, e.g. "HRB 123456 B, Amtsgericht Berlin-Charlottenburg". */
  registrationId: string;
  /** The managing directors (§ 35a GmbHG); null on invoices issued before docs/api.md part 14. */
  managingDirectors: string | null;
  contactName: string;
  contactPhone: string;
  contactEmail: string;
  /** An e-mail address (BT-34, scheme EM). */
  electronicAddress: string;
  iban: string;
  bic: string | null;
  sepaCreditorId: string | null;
}

/** The buyer: the customer's billing profile when the invoice was issued. */
export interface Buyer extends PostalAddress {
  customerId: string;
  legalName: string;
  vatId: string | null;
  buyerReference: string | null;
  /** A public-sector buyer's routing id: BT-10 and BT-49 (scheme 0204) when set. */
  leitwegId: string | null;
  /** BT-49 (scheme EM) without a Leitweg-ID; null only on invoices issued before docs/api.md part 14. */
  email: string | null;
  directDebitIban: string | null;
  directDebitBic: string | null;
  directDebitMandateReference: string | null;
  directDebitMandateSignedOn: string | null;
  documentLanguage: DocumentLanguage;
}

export interface DocumentLine {
  position: number;
  description: string;
  quantity: number;
  unitPriceCents: number;
  /** quantity × unit price. */
  netCents: number;
  vatCategory: VatCategory;
  /** As configured: "19", "7.5"; "0" for the exempt categories. */
  vatPercent: string;
}

export interface EInvoice {
  /** 380 commercial invoice, 381 credit note. */
  typeCode: "380" | "381";
  /** Which of a card order's invoices: the exemption reason of category O depends on it. */
  kind: InvoiceKind;
  language: DocumentLanguage;
  /** INV-YYYY-NNNNNN, or the CN- number of a credit note. */
  number: string;
  /** YYYY-MM-DD: the invoice's booked_on; a credit note's day of cancellation. */
  issueDate: string;
  /** YYYY-MM-DD: the invoice's due_on (a credit note has none). */
  dueDate: string | null;
  /** A credit note's invoice (BG-3). */
  precedingInvoice: { number: string; issueDate: string } | null;
  /** BT-13: the invoice's `reference`. */
  orderReference: string | null;
  /** BT-19: the invoice's `cost_center`. */
  accountingReference: string | null;
  /** BT-14: the card order id. */
  salesOrderReference: string;
  servicePeriod: { start: string; end: string } | null;
  paymentMethod: "bank_transfer" | "direct_debit";
  seller: Seller;
  buyer: Buyer;
  /** Ascending by position; at least one. Every line of one invoice has the same category and rate. */
  lines: DocumentLine[];
  /** Sum of the lines' net amounts. */
  netCents: number;
  /** net × rate / 100, rounded half up once (as the invoice's gross_amount - net_amount). */
  vatCents: number;
  grossCents: number;
}
